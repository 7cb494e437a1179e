/** Characters that mean nothing to a POSIX shell, so a word of only these needs no quotes (as Python's shlex.quote). */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * One POSIX shell word that reads back as exactly `value`: single-quoted, each `'` written `'\''`, unless plain. A
 * value put into a shell `command` (the script driver's templates, a plan step's references) goes in as one such word.
 */
export function shellQuote(value: string): string {
  return PLAIN_WORD.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}
