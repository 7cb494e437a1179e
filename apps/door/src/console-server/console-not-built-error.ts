/** `mur console` (or `mur demo`) found no built console. Its own file, so that `mur run` can name it without loading the console server. */
export class ConsoleNotBuiltError extends Error {
  override readonly name = 'ConsoleNotBuiltError';
}
