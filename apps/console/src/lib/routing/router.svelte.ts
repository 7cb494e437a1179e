/** The current hash route as reactive state; one instance for the app. */
import { href, parseRoute, type Route } from './routes.js';

/** The piece of `window` the router uses, so tests can hand it a fake. */
export interface HashWindow {
  location: { hash: string };
  history?: { replaceState(data: unknown, unused: string, url?: string): void };
  addEventListener(type: 'hashchange', listener: () => void): void;
  removeEventListener(type: 'hashchange', listener: () => void): void;
}

export class Router {
  #route = $state.raw<Route>({ name: 'capsules' });
  readonly #window: HashWindow;
  readonly #onChange = () => {
    this.#route = parseRoute(this.#window.location.hash);
  };

  constructor(win: HashWindow = window) {
    this.#window = win;
    this.#route = parseRoute(win.location.hash);
    win.addEventListener('hashchange', this.#onChange);
  }

  get route(): Route {
    return this.#route;
  }

  /** Goes to `route` (a new history entry, so Back works). */
  go(route: Route): void {
    const target = href(route);
    if (this.#window.location.hash === target) this.#onChange();
    else this.#window.location.hash = target;
  }

  /** Shows `route` in the address bar without a new history entry (a table's filters as they change). */
  replace(route: Route): void {
    const target = href(route);
    if (this.#window.location.hash === target) return;
    if (this.#window.history) this.#window.history.replaceState(null, '', target);
    else this.#window.location.hash = target;
    this.#route = parseRoute(target);
  }

  destroy(): void {
    this.#window.removeEventListener('hashchange', this.#onChange);
  }
}
