import { describe, expect, it } from 'vitest';
import { parseHostPort } from '@murmur/protocol';
import { doorKeyOfUrl, parseDoorAddress, proxyAddress } from '../src/lib/door/door-address';

describe('parseDoorAddress', () => {
  it('reads host:port, http URLs and bare ports', () => {
    expect(parseDoorAddress('127.0.0.1:41873')).toEqual({ ok: true, address: { host: '127.0.0.1', port: 41873, key: '127.0.0.1:41873' } });
    expect(parseDoorAddress(' http://127.0.0.1:41873/ ')).toMatchObject({ ok: true, address: { key: '127.0.0.1:41873' } });
    expect(parseDoorAddress('http://127.0.0.1:41873/.well-known/agent-card.json')).toMatchObject({ ok: true, address: { key: '127.0.0.1:41873' } });
    expect(parseDoorAddress('41873')).toMatchObject({ ok: true, address: { key: '127.0.0.1:41873' } });
    expect(parseDoorAddress('localhost:8080')).toMatchObject({ ok: true, address: { key: '127.0.0.1:8080' } });
    expect(parseDoorAddress('[::1]:9000')).toMatchObject({ ok: true, address: { key: '[::1]:9000' } });
    expect(parseDoorAddress('127.3.2.1:9000')).toMatchObject({ ok: true, address: { key: '127.3.2.1:9000' } });
  });

  it('refuses other hosts, saying the console reaches loopback doors only', () => {
    for (const input of ['10.0.0.5:41873', 'example.com:80', 'http://192.168.1.2:41873', '[::2]:1']) {
      const verdict = parseDoorAddress(input);
      expect(verdict.ok).toBe(false);
      if (!verdict.ok) expect(verdict.message).toMatch(/loopback/);
    }
  });

  it('asks for what is missing or wrong', () => {
    expect(parseDoorAddress('')).toMatchObject({ ok: false });
    expect(parseDoorAddress('127.0.0.1')).toMatchObject({ ok: false, message: expect.stringMatching(/port/) });
    expect(parseDoorAddress('https://127.0.0.1:1')).toMatchObject({ ok: false, message: expect.stringMatching(/plain http/) });
    expect(parseDoorAddress('http://u:p@127.0.0.1:1')).toMatchObject({ ok: false });
    expect(parseDoorAddress('127.0.0.1:99999')).toMatchObject({ ok: false });
  });

  it('accepts ::1 in any spelling and names it [::1], a key the proxy reads back', () => {
    for (const input of ['[0:0:0:0:0:0:0:1]:9000', 'http://[::0:1]:9000', '[::ffff:127.0.0.1]:9000']) {
      const verdict = parseDoorAddress(input);
      expect(verdict.ok, input).toBe(true);
      if (verdict.ok) expect(parseHostPort(verdict.address.key)).toEqual({ host: verdict.address.host, port: 9000 });
    }
    expect(parseDoorAddress('[0:0:0:0:0:0:0:1]:9000')).toMatchObject({ ok: true, address: { key: '[::1]:9000' } });
    expect(parseDoorAddress('127.300.0.1:9000')).toMatchObject({ ok: false });
  });

  it('maps session URLs to door keys and keys to the proxy address', () => {
    expect(doorKeyOfUrl('http://127.0.0.1:41873')).toBe('127.0.0.1:41873');
    expect(doorKeyOfUrl('http://10.1.1.1:41873')).toBeNull();
    expect(proxyAddress('http://127.0.0.1:7070/', '127.0.0.1:41873')).toBe('http://127.0.0.1:7070/api/door/127.0.0.1:41873');
  });
});

describe('doors added with mur console --door', () => {
  it('opens an added door by its exact host:port, and still refuses other non-loopback hosts', () => {
    const added = new Set(['192.0.2.2:41873']);
    expect(parseDoorAddress('192.0.2.2:41873', added)).toEqual({ ok: true, address: { host: '192.0.2.2', port: 41873, key: '192.0.2.2:41873' } });
    expect(parseDoorAddress('http://192.0.2.2:41873/', added)).toMatchObject({ ok: true });
    expect(parseDoorAddress('192.0.2.2:41874', added)).toMatchObject({ ok: false });
    expect(parseDoorAddress('192.0.2.2:41873')).toMatchObject({ ok: false });
  });

  it("opens an added https door by its URL, the scheme's port filled in; https to any other door is refused", () => {
    const added = new Set(['10.0.0.5:443', '10.0.0.6:8443']);
    expect(parseDoorAddress('https://10.0.0.5', added)).toEqual({ ok: true, address: { host: '10.0.0.5', port: 443, key: '10.0.0.5:443' } });
    expect(parseDoorAddress('https://10.0.0.6:8443/', added)).toEqual({ ok: true, address: { host: '10.0.0.6', port: 8443, key: '10.0.0.6:8443' } });
    expect(parseDoorAddress('10.0.0.6:8443', added)).toMatchObject({ ok: true });
    expect(parseDoorAddress('https://10.0.0.7', added)).toEqual({
      ok: false,
      message: 'The console reaches doors over plain http on this host, not https://.',
    });
    expect(parseDoorAddress('ftp://10.0.0.5', added)).toEqual({ ok: false, message: 'The console reaches doors over plain http on this host, not ftp://.' });
  });
});
