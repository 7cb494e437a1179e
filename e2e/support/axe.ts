/** axe-core in the page as the suite runs it: WCAG 2.x A and AA, and the experimental rules the operator walk used. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from '@playwright/test';

/**
 * axe-core's minified build (580 KB), from the copy @axe-core/playwright depends on, read once a worker. AxeBuilder's
 * default is `axe.source`, the whole unminified build (1.3 MB), which Chromium parses again in each page it checks:
 * the same axe-core and the same rules, with about 150 ms less of the renderer's CPU for each check (injecting took
 * 225–240 ms against 340–430, three fresh pages each).
 */
const fromAxeBuilder = createRequire(createRequire(import.meta.url).resolve('@axe-core/playwright'));
const AXE_SOURCE = readFileSync(fromAxeBuilder.resolve('axe-core/axe.min.js'), 'utf8');

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
/** Experimental in axe 4.x, so off unless named: the walk of issue 27 found it on the task page. */
const EXPERIMENTAL_RULES = ['label-content-name-mismatch'];
/** The impacts that fail any test, on whatever page it ends (the fixtures check every test's page). */
export const FAILING_IMPACTS: ReadonlySet<string> = new Set(['serious', 'critical']);

/** Every violation as one readable line per node, so a failure names the rule, its impact and the element. */
export async function axeViolations(page: Page, impacts?: ReadonlySet<string>): Promise<string[]> {
  // axe.run in the page itself (legacy mode) rather than runPartial there and finishRun in a second, blank page: the same
  // rules on the same nodes and every violation in full, without serializing a result per node checked to carry it
  // across (the console has no frames, which runPartial exists for). resultTypes: the passes, incomplete and
  // inapplicable results, which nothing here reads, name one node each. On the record of 1,000 tool calls this check
  // took 78 s, 21 s so; on every test's last page it is the fixtures' check (fixtures.ts).
  const builder = new AxeBuilder({ page, axeSource: AXE_SOURCE })
    .setLegacyMode(true)
    .withTags(TAGS)
    .options({ resultTypes: ['violations'], rules: Object.fromEntries(EXPERIMENTAL_RULES.map((id) => [id, { enabled: true }])) });
  const result = await builder.analyze();
  return result.violations
    .filter((v) => impacts === undefined || (v.impact != null && impacts.has(v.impact)))
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')} — ${n.failureSummary?.split('\n').join(' ')}`));
}
