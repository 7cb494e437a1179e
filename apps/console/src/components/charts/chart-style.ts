/**
 * How series are told apart without colour (docs/console.md): each has a colour and, besides it, a hatch (bars), a
 * dash and a marker shape (lines), in series order.
 */
const FILLS = ['#2f6fb5', '#9a5b2a', '#3f8f4f', '#7a4fa0', '#c7862b', '#6b6b6b', '#b23b3b', '#2a8a8a'];

export const fillOf = (series: number) => FILLS[series % FILLS.length] ?? '#6b6b6b';

/** A hatch per series (the first is solid): an SVG pattern's content in a 6×6 tile, or null. */
const PATTERNS: (string | null)[] = [
  null,
  'M-1,1 l2,-2 M0,6 l6,-6 M5,7 l2,-2',
  'M3,3 m-1,0 a1,1 0 1,0 2,0 a1,1 0 1,0 -2,0',
  'M0,0 L6,6 M6,0 L0,6',
  'M0,3 L6,3',
  'M3,0 L3,6',
  'M-1,5 l2,2 M0,0 l6,6 M5,-1 l2,2',
  'M0,3 L6,3 M3,0 L3,6',
];

export const patternOf = (series: number) => PATTERNS[series % PATTERNS.length] ?? null;
export const PATTERN_COUNT = PATTERNS.length;

export const DASHES = ['', '6 3', '2 3', '8 3 2 3'];

/** Marker paths centred on 0,0: circle, square, triangle, diamond. */
export const MARKERS = ['M-4,0 a4,4 0 1,0 8,0 a4,4 0 1,0 -8,0', 'M-3.5,-3.5 h7 v7 h-7 z', 'M0,-4.5 L4.5,3.5 L-4.5,3.5 z', 'M0,-5 L5,0 L0,5 L-5,0 z'];
