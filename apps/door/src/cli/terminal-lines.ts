import { escapeControlCharacters } from '@murmur/protocol';

/**
 * What mur writes to a person's terminal: every line and chunk with its control characters escaped, since any of them
 * may carry what a command printed or a model wrote (docs/sandbox.md, "Output is data"); and a state word in its
 * colour, on a terminal that wants colour (docs/cli.md, "Colour").
 */

/** How a word is painted: done well, failed, at work, waiting on someone, or of no further interest. */
export type Tone = 'good' | 'bad' | 'busy' | 'waiting' | 'quiet';

/** A piece of a line: text (escaped as it is written), or a word painted in a tone. */
export type Piece = string | { text: string; tone: Tone };

/** A line as a command writes it: plain text, or pieces of which some are painted. */
export type Line = string | readonly Piece[];

const SGR: Record<Tone, string> = { good: '32', bad: '31', busy: '36', waiting: '33', quiet: '2' };

/**
 * Whether a stream gets colour: `FORCE_COLOR` set decides (`0` none); else none under `NO_COLOR` (any value but empty,
 * no-color.org) or `TERM=dumb`; else only a terminal gets it, never a pipe or a file.
 */
export function wantsColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '') return env.FORCE_COLOR !== '0';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** A line as written: every piece escaped, painted ones wrapped in their colour when `colour`. */
export function render(line: Line, colour: boolean): string {
  if (typeof line === 'string') return escapeControlCharacters(line);
  return line
    .map((piece) => {
      if (typeof piece === 'string') return escapeControlCharacters(piece);
      const text = escapeControlCharacters(piece.text);
      return colour ? `\u001b[${SGR[piece.tone]}m${text}\u001b[0m` : text;
    })
    .join('');
}

export const printOut = (line: Line): void => void process.stdout.write(`${render(line, wantsColour(process.stdout))}\n`);
export const writeOut = (text: string): void => void process.stdout.write(escapeControlCharacters(text));
export const printErr = (line: Line): void => void process.stderr.write(`${render(line, wantsColour(process.stderr))}\n`);

/** The last line of a failed command, written before the process exits with `code` (a piped stderr is written asynchronously). */
export const failWith = (line: string, code: number): void => void process.stderr.write(`${escapeControlCharacters(line)}\n`, () => process.exit(code));
