/**
 * A local OTLP/HTTP trace endpoint on loopback, and a decoder of its protobuf bodies built on the OpenTelemetry
 * SDK's own protobuf reader (@opentelemetry/otlp-transformer), with the field numbers of
 * opentelemetry/proto/trace/v1/trace.proto and common/v1/common.proto.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProtobufReader } from '@opentelemetry/otlp-transformer/build/src/common/protobuf/protobuf-reader.js';

export type AttrValue = string | number | boolean | AttrValue[] | null;

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  /** The W3C tracestate the span carries (trace.proto field 3); '' when none. */
  traceState: string;
  name: string;
  /** SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, AttrValue>;
  events: { name: string; attributes: Record<string, AttrValue> }[];
  /** Status code: 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  resource: Record<string, AttrValue>;
}

const WIRE_64 = 1;
const WIRE_LEN = 2;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** Walks one message's fields: each is handed its number, a reader positioned on its value, and the raw buffer. */
function fields(buf: Uint8Array, on: (field: number, wireType: number, r: ProtobufReader, at: number) => boolean): void {
  const r = new ProtobufReader(buf);
  while (!r.isAtEnd()) {
    const { fieldNumber, wireType } = r.readTag();
    if (!on(fieldNumber, wireType, r, r.pos)) r.skip(wireType);
  }
}

function fixed64(buf: Uint8Array, at: number): bigint {
  return new DataView(buf.buffer, buf.byteOffset, buf.byteLength).getBigUint64(at, true);
}

function anyValue(buf: Uint8Array): AttrValue {
  let value: AttrValue = null;
  fields(buf, (f, w, r, at) => {
    if (f === 1) value = r.readString();
    else if (f === 2) value = r.readVarint() !== 0;
    else if (f === 3) value = r.readVarint();
    else if (f === 4 && w === WIRE_64) {
      value = new DataView(buf.buffer, buf.byteOffset, buf.byteLength).getFloat64(at, true);
      return false;
    } else if (f === 5) {
      const list: AttrValue[] = [];
      fields(r.readBytes(), (g, _w, rr) => {
        if (g !== 1) return false;
        list.push(anyValue(rr.readBytes()));
        return true;
      });
      value = list;
    } else return false;
    return true;
  });
  return value;
}

function keyValue(buf: Uint8Array, into: Record<string, AttrValue>): void {
  let key = '';
  let value: AttrValue = null;
  fields(buf, (f, _w, r) => {
    if (f === 1) key = r.readString();
    else if (f === 2) value = anyValue(r.readBytes());
    else return false;
    return true;
  });
  into[key] = value;
}

function span(buf: Uint8Array, resource: Record<string, AttrValue>): OtlpSpan {
  const s: OtlpSpan = {
    traceId: '',
    spanId: '',
    parentSpanId: '',
    traceState: '',
    name: '',
    kind: 0,
    startNs: 0n,
    endNs: 0n,
    attributes: {},
    events: [],
    status: { code: 0, message: '' },
    resource,
  };
  fields(buf, (f, w, r, at) => {
    switch (f) {
      case 1:
        s.traceId = hex(r.readBytes());
        return true;
      case 2:
        s.spanId = hex(r.readBytes());
        return true;
      case 3:
        s.traceState = r.readString();
        return true;
      case 4:
        s.parentSpanId = hex(r.readBytes());
        return true;
      case 5:
        s.name = r.readString();
        return true;
      case 6:
        s.kind = r.readVarint();
        return true;
      case 7:
        if (w === WIRE_64) s.startNs = fixed64(buf, at);
        return false;
      case 8:
        if (w === WIRE_64) s.endNs = fixed64(buf, at);
        return false;
      case 9:
        keyValue(r.readBytes(), s.attributes);
        return true;
      case 11: {
        const event = { name: '', attributes: {} as Record<string, AttrValue> };
        fields(r.readBytes(), (g, _w, rr) => {
          if (g === 2) event.name = rr.readString();
          else if (g === 3) keyValue(rr.readBytes(), event.attributes);
          else return false;
          return true;
        });
        s.events.push(event);
        return true;
      }
      case 15:
        fields(r.readBytes(), (g, _w, rr) => {
          if (g === 2) s.status.message = rr.readString();
          else if (g === 3) s.status.code = rr.readVarint();
          else return false;
          return true;
        });
        return true;
      default:
        return false;
    }
  });
  return s;
}

/** An ExportTraceServiceRequest body, flattened to its spans (each with its resource's attributes). */
function decodeTraceRequest(body: Uint8Array): OtlpSpan[] {
  const spans: OtlpSpan[] = [];
  fields(body, (f, w, r) => {
    if (f !== 1 || w !== WIRE_LEN) return false;
    const resource: Record<string, AttrValue> = {};
    const scopeSpans: Uint8Array[] = [];
    fields(r.readBytes(), (g, _w, rr) => {
      if (g === 1) {
        fields(rr.readBytes(), (h, _w2, r3) => {
          if (h !== 1) return false;
          keyValue(r3.readBytes(), resource);
          return true;
        });
      } else if (g === 2) scopeSpans.push(rr.readBytes());
      else return false;
      return true;
    });
    for (const scope of scopeSpans) {
      fields(scope, (g, _w, rr) => {
        if (g !== 2) return false;
        spans.push(span(rr.readBytes(), resource));
        return true;
      });
    }
    return true;
  });
  return spans;
}

/** One histogram point of an exported metric (metrics.proto): its attributes, count and sum. */
interface OtlpHistogramPoint {
  metric: string;
  unit: string;
  attributes: Record<string, AttrValue>;
  count: bigint;
  sum: number;
}

/** An ExportMetricsServiceRequest body, flattened to its histograms' data points (other kinds are skipped). */
function decodeMetricsRequest(body: Uint8Array): OtlpHistogramPoint[] {
  const points: OtlpHistogramPoint[] = [];
  const each = (buf: Uint8Array, field: number, on: (b: Uint8Array) => void) =>
    fields(buf, (f, w, r) => {
      if (f !== field || w !== WIRE_LEN) return false;
      on(r.readBytes());
      return true;
    });
  each(body, 1, (resourceMetrics) =>
    each(resourceMetrics, 2, (scopeMetrics) =>
      each(scopeMetrics, 2, (metric) => {
        let name = '';
        let unit = '';
        const histograms: Uint8Array[] = [];
        fields(metric, (f, _w, r) => {
          if (f === 1) name = r.readString();
          else if (f === 3) unit = r.readString();
          else if (f === 9) histograms.push(r.readBytes());
          else return false;
          return true;
        });
        for (const histogram of histograms) {
          each(histogram, 1, (point) => {
            const p: OtlpHistogramPoint = { metric: name, unit, attributes: {}, count: 0n, sum: 0 };
            fields(point, (f, w, r, at) => {
              if (f === 9) keyValue(r.readBytes(), p.attributes);
              else if (f === 4 && w === WIRE_64) {
                p.count = fixed64(point, at);
                return false;
              } else if (f === 5 && w === WIRE_64) {
                p.sum = new DataView(point.buffer, point.byteOffset, point.byteLength).getFloat64(at, true);
                return false;
              } else return false;
              return true;
            });
            points.push(p);
          });
        }
      }),
    ),
  );
  return points;
}

export interface Collector {
  url: string;
  spans: OtlpSpan[];
  /** Histogram points of every metrics export, in arrival order (a cumulative metric repeats in each export). */
  metrics: OtlpHistogramPoint[];
  /** Requests seen: path and content type. */
  requests: { path: string; contentType: string }[];
  /** A hanging receiver's requests it holds unanswered whose connection the exporter has not given up yet. */
  held(): number;
  close(): Promise<void>;
}

/** An OTLP/HTTP receiver on 127.0.0.1 (traces and metrics) answering 200 to every export; `hang` accepts requests and never answers. */
export async function startCollector(opts: { hang?: boolean } = {}): Promise<Collector> {
  const spans: OtlpSpan[] = [];
  const metrics: OtlpHistogramPoint[] = [];
  const requests: Collector['requests'] = [];
  const held = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', contentType: req.headers['content-type'] ?? '' });
      if (opts.hang) {
        held.add(res);
        res.once('close', () => held.delete(res));
        return;
      }
      const body = new Uint8Array(Buffer.concat(chunks));
      if (req.url === '/v1/metrics') metrics.push(...decodeMetricsRequest(body));
      else spans.push(...decodeTraceRequest(body));
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    metrics,
    requests,
    held: () => held.size,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
