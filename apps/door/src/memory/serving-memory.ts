import { collectWhenQuiet } from './quiet-collector.js';
import { allowYoungGenerationGrowth } from './young-generation.js';

/**
 * A door's process once its door serves (`mur run`, a formation member, a delegation child): the young generation may
 * grow under load up to its cap, and the door collects when it goes quiet (docs/benchmarks.md, issue 17).
 */
export function manageMemoryWhileServing(): void {
  allowYoungGenerationGrowth();
  collectWhenQuiet();
}
