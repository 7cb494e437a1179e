/** A bad command line: the CLI prints the message and exits 2. Kept apart from run-command so light commands load fast. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
