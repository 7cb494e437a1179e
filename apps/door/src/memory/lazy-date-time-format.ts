/** What a formatter answers: the built-in's prototype, as this module found it. */
const FORMATTER_PROTOTYPE: object = Intl.DateTimeFormat.prototype;

/**
 * Loads a module graph with `Intl.DateTimeFormat` standing in lazily: a formatter constructed while `load` runs is
 * created for real only when it is first used. Why: @nestjs/common builds two formatters when it is imported (its
 * console loggers' timestamps), and the first `Intl.DateTimeFormat` of a process reads about 4.5 MiB of ICU data
 * (locale, calendar and time zone tables embedded in the node binary), which then stays in the door's RSS for good
 * although a door runs Nest with `logger: false` and never formats a date that way (docs/benchmarks.md, issue 17,
 * third pass). Only the constructor seen during `load` is replaced; it is restored before `load`'s result is used.
 */
export async function withLazyDateTimeFormat<T>(load: () => Promise<T>): Promise<T> {
  const RealDateTimeFormat = Intl.DateTimeFormat;
  const lazy = function LazyDateTimeFormat(locales?: Intl.LocalesArgument, options?: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
    let real: Intl.DateTimeFormat | undefined;
    const formatter = () => (real ??= new RealDateTimeFormat(locales, options));
    return new Proxy(Object.create(FORMATTER_PROTOTYPE) as Intl.DateTimeFormat, {
      get(_target, key) {
        // A key no formatter has (a promise resolution's `then`) does not build one.
        if (!(key in FORMATTER_PROTOTYPE)) return undefined;
        const target = formatter();
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  };
  Object.assign(lazy, { supportedLocalesOf: RealDateTimeFormat.supportedLocalesOf });
  Intl.DateTimeFormat = lazy as unknown as typeof Intl.DateTimeFormat;
  try {
    return await load();
  } finally {
    Intl.DateTimeFormat = RealDateTimeFormat;
  }
}
