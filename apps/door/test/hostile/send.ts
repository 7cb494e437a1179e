/** Sending generated requests over a keep-alive agent and reading just enough of each answer to judge it. */
import http from 'node:http';
import type { HostileRequest } from './requests.js';

export interface HostileAnswer {
  status: number;
  contentType: string;
  text: string;
  /** The first event's data of an event stream, which is then closed. */
  firstEvent: string | null;
}

/** Sends one request; an event stream is read to its first `data:` line, then closed. Times out after `timeoutMs`. */
export function sendHostile(url: string, agent: http.Agent, request: HostileRequest, timeoutMs = 10_000): Promise<HostileAnswer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.target,
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
        agent,
      },
      (res) => {
        const contentType = String(res.headers['content-type'] ?? '');
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          if (contentType.startsWith('text/event-stream')) {
            const data = /^data: (.*)$/m.exec(text);
            if (data) {
              clearTimeout(timer);
              res.destroy();
              resolve({ status: res.statusCode ?? 0, contentType, text, firstEvent: data[1] });
            }
          }
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, contentType, text, firstEvent: null });
        });
        res.on('error', () => undefined);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer in ${timeoutMs} ms to ${request.method} ${request.target} ${request.body.slice(0, 200)}`));
    }, timeoutMs);
    // A socket the door resets after an answer was read (a closed stream, a refused body) must not fail the run.
    req.on('socket', (socket) => socket.on('error', () => undefined));
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(request.body);
  });
}

/** Resident set size of a process, from /proc (Linux), in MiB. */
export async function rssMiB(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}
