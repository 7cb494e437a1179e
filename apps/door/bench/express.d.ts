// The little of express 5 (a dev dependency, for the SDK reference server) the bench uses; @types/express is not installed.
declare module 'express' {
  import type { RequestListener, Server } from 'node:http';

  interface Application extends RequestListener {
    use(path: string, handler: unknown): Application;
    listen(port: number, host: string, callback: () => void): Server;
  }
  function express(): Application;
  export default express;
}
