import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { isWebUrl, webUrl } from '../../../shared/domain/core/web-url.ts';

const REFUSED_EVERYWHERE = [
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  'javascript://example.com/%0aalert(1)',
  'data:text/html,<script>alert(1)</script>',
  'DATA:image/png;base64,iVBORw0KGgo=',
  'file:///etc/passwd',
  'ftp://example.com/a.png',
  'ws://example.com/socket',
  'blob:https://example.com/uuid',
  ' https://example.com/a.png',
  '\thttps://example.com/a.png',
  '\u0000https://example.com/a.png',
  'https://example.com/a.png ',
  'java\tscript:alert(1)',
  'ht\ntps://example.com/a.png',
  'https:example.com/a.png',
  '//example.com/a.png',
  '/a.png',
  'example.com/a.png',
  'https://',
  'https://user:secret@example.com/a.png',
  'https://example.com:99999/a.png',
  '',
];

describe('isWebUrl', () => {
  it.each(REFUSED_EVERYWHERE)('refuses %j, with or without http allowed', (text) => {
    expect([isWebUrl(text), isWebUrl(text, { http: true })]).toEqual([false, false]);
  });

  it.each([
    'https://example.com',
    'HTTPS://EXAMPLE.COM/A.PNG',
    'https://cdn.example.com:8443/avatars/ana.png?size=64#top',
    'https://bücher.example/ä.png',
    'https://[2001:db8::1]/a.png',
  ])('accepts the https URL %j', (text) => {
    expect(isWebUrl(text)).toBe(true);
  });

  it('refuses http unless the field allows it', () => {
    expect(isWebUrl('http://example.com/a.png')).toBe(false);
    expect(isWebUrl('http://example.com/a.png', { http: true })).toBe(true);
    expect(isWebUrl('HTTP://127.0.0.1:8080/hook', { http: true })).toBe(true);
  });
});

describe('webUrl', () => {
  it('names the field when it refuses a scheme', () => {
    const result = v.safeParse(webUrl('avatarUrl'), 'javascript:alert(1)');

    expect(result.issues?.map((issue) => issue.message)).toEqual(['avatarUrl must be an absolute https URL']);
  });

  it('answers the given message instead, for every reason', () => {
    const schema = webUrl('url', { http: true, message: 'Webhook URL must be a public https URL' });

    const messages = [7, 'file:///etc/passwd', `https://example.com/${'a'.repeat(2048)}`].map(
      (input) => v.safeParse(schema, input).issues?.[0]?.message,
    );

    expect(messages).toEqual(Array(3).fill('Webhook URL must be a public https URL'));
  });

  it('refuses a URL longer than the bound', () => {
    const schema = webUrl('avatarUrl', { max: 30 });

    expect(v.safeParse(schema, 'https://example.com/a.png').success).toBe(true);
    expect(v.safeParse(schema, `https://example.com/${'a'.repeat(20)}`).issues?.[0]?.message).toBe(
      'avatarUrl must be at most 30 characters',
    );
  });

  it('keeps the URL as sent', () => {
    expect(v.parse(webUrl('avatarUrl'), 'HTTPS://Example.com')).toBe('HTTPS://Example.com');
  });
});
