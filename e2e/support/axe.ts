/** axe-core in the page as the suite runs it: WCAG 2.x A and AA, and the experimental rules the operator walk used. */
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from '@playwright/test';

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
/** Experimental in axe 4.x, so off unless named: the walk of issue 27 found it on the task page. */
const EXPERIMENTAL_RULES = ['label-content-name-mismatch'];
/** The impacts that fail any test, on whatever page it ends (the fixtures check every test's page). */
export const FAILING_IMPACTS: ReadonlySet<string> = new Set(['serious', 'critical']);

/** Every violation as one readable line per node, so a failure names the rule, its impact and the element. */
export async function axeViolations(page: Page, impacts?: ReadonlySet<string>): Promise<string[]> {
  const builder = new AxeBuilder({ page }).withTags(TAGS).options({ rules: Object.fromEntries(EXPERIMENTAL_RULES.map((id) => [id, { enabled: true }])) });
  const result = await builder.analyze();
  return result.violations
    .filter((v) => impacts === undefined || (v.impact != null && impacts.has(v.impact)))
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')} — ${n.failureSummary?.split('\n').join(' ')}`));
}
