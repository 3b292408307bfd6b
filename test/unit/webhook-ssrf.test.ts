import { describe, expect, it } from 'vitest';
import { checkUrlSyntax, checkWebhookUrl, ipv6Groups, isForbiddenAddress, type Resolver } from '../../shared/core/ssrf.ts';

const aws = { allowLoopback: false };
const local = { allowLoopback: true };
const resolvesTo = (...addresses: string[]): Resolver => async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('SSRF checks of webhook URLs', () => {
  it.each([
    '127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
    '224.0.0.1', '255.255.255.255', '192.0.0.192', '::1', '::', 'fe80::1', 'fd00:ec2::254', 'fc00::1', 'ff02::1',
    '::ffff:127.0.0.1', '::ffff:a9fe:a9fe', '64:ff9b::a9fe:a9fe', 'not-an-ip',
  ])('refuses %s', (address) => expect(isForbiddenAddress(address)).toBe(true));

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows the public address %s', (address) =>
    expect(isForbiddenAddress(address)).toBe(false),
  );

  // Issue 19: IPv4 inside IPv6, decided on the number whatever the spelling; the newest special ranges.
  it.each([
    '::127.0.0.1', '::7f00:1', '::169.254.169.254', '::a9fe:a9fe', '::10.0.0.1', '::a00:1', '::8.8.8.8', '0:0:0:0:0:0:7f00:1',
    '::ffff:0:127.0.0.1', '::ffff:0:7f00:1', '::ffff:0:169.254.169.254', '::ffff:0:8.8.8.8',
    '::ffff:7f00:1', '0:0:0:0:0:ffff:a9fe:a9fe', 'fe80::1%eth0',
    '3fff::1', '3fff:fff::1', '5f00::1', '5f00:ffff::1',
  ])('refuses %s, an IPv6 spelling of a special address', (address) => expect(isForbiddenAddress(address)).toBe(true));

  it.each(['3fff:1000::1', '5f01::1', '2a00:1450:4001::1', '0:0:0:0:0:ffff:808:808'])('allows %s, just outside those ranges', (address) =>
    expect(isForbiddenAddress(address)).toBe(false),
  );

  it('reads an IPv6 address as its eight numbers, whatever the spelling', () => {
    expect(ipv6Groups('::127.0.0.1')).toEqual([0, 0, 0, 0, 0, 0, 0x7f00, 1]);
    expect(ipv6Groups('::ffff:0:7f00:1')).toEqual([0, 0, 0, 0, 0xffff, 0, 0x7f00, 1]);
    expect(ipv6Groups('1::')).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(ipv6Groups('fe80::1%eth0')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(ipv6Groups('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(ipv6Groups('10.0.0.1')).toBeUndefined();
    expect(ipv6Groups('not-an-ip')).toBeUndefined();
  });

  it('refuses URLs of IPv4-compatible and IPv4-translated addresses, which the URL parser writes in hex', async () => {
    for (const host of ['[::127.0.0.1]', '[::169.254.169.254]', '[::10.0.0.1]', '[::ffff:0:127.0.0.1]', '[::ffff:0:169.254.169.254]', '[3fff::1]', '[5f00::1]']) {
      expect(checkUrlSyntax(`https://${host}/hook`, aws).ok, host).toBe(false);
      expect(checkUrlSyntax(`https://${host}/hook`, local).ok, host).toBe(false);
    }
    expect(checkUrlSyntax('https://[2a00:1450:4001::1]/hook', aws).ok).toBe(true);
  });

  it('refuses those forms in DNS answers at delivery too', async () => {
    for (const answer of ['::7f00:1', '::ffff:0:a9fe:a9fe', '::a00:1', '3fff::1', '5f00::1']) {
      expect((await checkWebhookUrl('https://rebind.example.com/', aws, resolvesTo(answer))).ok, answer).toBe(false);
    }
  });

  it('wants https with no credentials in AWS', () => {
    expect(checkUrlSyntax('http://example.com/hook', aws).ok).toBe(false);
    expect(checkUrlSyntax('https://user:pw@example.com/hook', aws).ok).toBe(false);
    expect(checkUrlSyntax('ftp://example.com/', aws).ok).toBe(false);
    expect(checkUrlSyntax('not a url', aws).ok).toBe(false);
    expect(checkUrlSyntax(`https://example.com/${'a'.repeat(2100)}`, aws).ok).toBe(false);
    expect(checkUrlSyntax('https://example.com/hook', aws).ok).toBe(true);
  });

  it('refuses literal, shorthand and bracketed special addresses and local names', () => {
    for (const url of ['https://127.0.0.1/', 'https://0x7f.1/', 'https://2130706433/', 'https://[::1]/', 'https://[::ffff:169.254.169.254]/', 'https://localhost/', 'https://a.localhost/', 'https://metadata.google.internal/', 'https://intranet/']) {
      expect(checkUrlSyntax(url, aws).ok, url).toBe(false);
    }
  });

  it('accepts http://127.0.0.1:<port>/ and http://localhost:<port>/ on the local stack only, nothing else of those ranges', () => {
    expect(checkUrlSyntax('http://127.0.0.1:8080/hook', local).ok).toBe(true);
    expect(checkUrlSyntax('http://localhost:8080/hook', local).ok).toBe(true);
    expect(checkUrlSyntax('http://127.0.0.1:8080/hook', aws).ok).toBe(false);
    expect(checkUrlSyntax('http://127.0.0.2:8080/hook', local).ok).toBe(false);
    expect(checkUrlSyntax('http://169.254.169.254/latest', local).ok).toBe(false);
    expect(checkUrlSyntax('https://10.0.0.1/', local).ok).toBe(false);
    expect(checkUrlSyntax('http://127.0.0.1/hook', local).ok).toBe(false); // no port
    // A named port is a port, the scheme's default too (the URL parser drops it from url.port).
    expect(checkUrlSyntax('http://127.0.0.1:80/hook', local).ok).toBe(true);
    expect(checkUrlSyntax('http://localhost:80', local).ok).toBe(true);
    expect(checkUrlSyntax('http://127.0.0.1:80/hook', aws).ok).toBe(false);
    // http:// only: https:// to a loopback address is "something else of those ranges".
    expect(checkUrlSyntax('https://127.0.0.1:8443/hook', local).ok).toBe(false);
    expect(checkUrlSyntax('https://localhost:8443/hook', local).ok).toBe(false);
  });

  it('resolves the host and refuses it when any address it resolves to is forbidden', async () => {
    expect(await checkWebhookUrl('https://hooks.example.com/', aws, resolvesTo('93.184.216.34'))).toMatchObject({ ok: true, address: '93.184.216.34' });
    expect((await checkWebhookUrl('https://rebind.example.com/', aws, resolvesTo('93.184.216.34', '10.0.0.5'))).ok).toBe(false);
    expect((await checkWebhookUrl('https://meta.example.com/', aws, resolvesTo('169.254.169.254'))).ok).toBe(false);
    expect((await checkWebhookUrl('https://v6.example.com/', aws, resolvesTo('::1'))).ok).toBe(false);
    expect((await checkWebhookUrl('https://none.example.com/', aws, async () => [])).ok).toBe(false);
    expect((await checkWebhookUrl('https://fail.example.com/', aws, async () => { throw new Error('ENOTFOUND'); })).ok).toBe(false);
  });
});
