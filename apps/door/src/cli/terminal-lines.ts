import { escapeControlCharacters } from '@murmur/protocol';

/**
 * What mur writes to a person's terminal: every line and chunk with its control characters escaped, since any of them
 * may carry what a command printed or a model wrote (docs/sandbox.md, "Output is data").
 */
export const printOut = (line: string): void => void process.stdout.write(`${escapeControlCharacters(line)}\n`);
export const writeOut = (text: string): void => void process.stdout.write(escapeControlCharacters(text));
export const printErr = (line: string): void => void process.stderr.write(`${escapeControlCharacters(line)}\n`);

/** The last line of a failed command, written before the process exits with `code` (a piped stderr is written asynchronously). */
export const failWith = (line: string, code: number): void => void process.stderr.write(`${escapeControlCharacters(line)}\n`, () => process.exit(code));
