/**
 * The data behind the lookalike families: keyboard neighbours and lookalike glyphs, as dnstwist
 * (20221213) uses them, plus the Cyrillic and Greek lookalikes this service adds.
 */

/** `key:neighbours` pairs, space-separated, into a lookup. */
const layout = (pairs: string): Record<string, string> =>
  Object.fromEntries(pairs.split(' ').map((pair) => pair.split(':') as [string, string]));

/** Neighbours on a QWERTY keyboard, digit row included. */
export const QWERTY = layout(
  '1:2q 2:3wq1 3:4ew2 4:5re3 5:6tr4 6:7yt5 7:8uy6 8:9iu7 9:0oi8 0:po9 ' +
    'q:12wa w:3esaq2 e:4rdsw3 r:5tfde4 t:6ygfr5 y:7uhgt6 u:8ijhy7 i:9okju8 o:0plki9 p:lo0 ' +
    'a:qwsz s:edxzaw d:rfcxse f:tgvcdr g:yhbvft h:ujnbgy j:ikmnhu k:olmji l:kop ' +
    'z:asx x:zsdc c:xdfv v:cfgb b:vghn n:bhjm m:njk',
);

/** QWERTZ is QWERTY with Y and Z swapped. */
const swapYZ = (text: string) => text.replace(/[yz]/g, (char) => (char === 'y' ? 'z' : 'y'));
const QWERTZ = Object.fromEntries(Object.entries(QWERTY).map(([key, near]) => [swapYZ(key), swapYZ(near)]));

/** French AZERTY as dnstwist has it (M at the end of the home row, no M beside J). */
const AZERTY = layout(
  '1:2a 2:3za1 3:4ez2 4:5re3 5:6tr4 6:7yt5 7:8uy6 8:9iu7 9:0oi8 0:po9 ' +
    'a:2zq1 z:3esqa2 e:4rdsz3 r:5tfde4 t:6ygfr5 y:7uhgt6 u:8ijhy7 i:9okju8 o:0plki9 p:lo0m ' +
    'q:zswa s:edxwqz d:rfcxse f:tgvcdr g:yhbvft h:ujnbgy j:iknhu k:olji l:kopm m:lp ' +
    'w:sxq x:wsdc c:xdfv v:cfgb b:vghn n:bhj',
);

export const KEYBOARDS: readonly Record<string, string>[] = [QWERTY, QWERTZ, AZERTY];

/**
 * What each character can be mistaken for: dnstwist's table (digits, Latin letters with marks,
 * small capitals, multi-letter look-alikes such as `rn` for `m`) and, beyond it, the Cyrillic and
 * Greek letters that look Latin. Space-separated, so a lookalike may be several characters.
 */
export const GLYPHS: Record<string, readonly string[]> = Object.fromEntries(
  Object.entries({
    0: 'o',
    1: 'l i',
    2: 'ƻ',
    3: '8',
    5: 'ƽ',
    6: '9',
    8: '3',
    9: '6',
    a: 'à á â ã ä å ɑ ạ ǎ ă ȧ ą ə а',
    b: 'd lb ʙ ɓ ḃ ḅ ḇ ƅ ь',
    c: 'e ƈ ċ ć ç č ĉ ᴄ с',
    d: 'b cl dl ɗ đ ď ɖ ḑ ḋ ḍ ḏ ḓ',
    e: 'c é è ê ë ē ĕ ě ė ẹ ę ȩ ɇ ḛ е',
    f: 'ƒ ḟ',
    g: 'q ɢ ɡ ġ ğ ǵ ģ ĝ ǧ ǥ',
    h: 'lh ĥ ȟ ħ ɦ ḧ ḩ ⱨ ḣ ḥ ḫ ẖ һ',
    i: '1 l í ì ï ı ɩ ǐ ĭ ỉ ị ɨ ȋ ī ɪ і',
    j: 'ʝ ǰ ɉ ĵ',
    k: 'lk ik lc ḳ ḵ ⱪ ķ ᴋ κ',
    l: '1 i ɫ ł ĺ',
    m: 'n nn rn rr ṁ ṃ ᴍ ɱ ḿ',
    n: 'm r ń ṅ ṇ ṉ ñ ņ ǹ ň ꞑ',
    o: '0 ȯ ọ ỏ ơ ó ö ᴏ ò ô õ ο о',
    p: 'ƿ ƥ ṕ ṗ ρ р',
    q: 'g ʠ ԛ',
    r: 'ʀ ɼ ɽ ŕ ŗ ř ɍ ɾ ȓ ȑ ṙ ṛ ṟ г',
    s: 'ʂ ś ṣ ṡ ș ŝ š ꜱ ѕ',
    t: 'ţ ŧ ṫ ṭ ț ƫ ť τ',
    u: 'ᴜ ǔ ŭ ü ʉ ù ú û ũ ū ų ư ů ű ȕ ȗ ụ υ',
    v: 'ṿ ⱱ ᶌ ṽ ⱴ ᴠ ν ѵ',
    w: 'vv ŵ ẁ ẃ ẅ ⱳ ẇ ẉ ẘ ᴡ ѡ',
    x: 'ẋ ẍ х ҳ',
    y: 'ʏ ý ÿ ŷ ƴ ȳ ɏ ỿ ẏ ỵ у',
    z: 'ʐ ż ź ᴢ ƶ ẓ ẕ ⱬ ž',
  }).map(([char, glyphs]) => [char, glyphs.split(' ')]),
);

/** The Cyrillic twin of each Latin letter that has one (none for f, n, r, u, z). */
export const CYRILLIC: Record<string, string> = {
  a: 'а',
  b: 'ь',
  c: 'с',
  d: 'ԁ',
  e: 'е',
  g: 'ԍ',
  h: 'һ',
  i: 'і',
  j: 'ј',
  k: 'к',
  l: 'ӏ',
  m: 'м',
  o: 'о',
  p: 'р',
  q: 'ԛ',
  s: 'ѕ',
  t: 'т',
  v: 'ѵ',
  w: 'ԝ',
  x: 'х',
  y: 'у',
};
