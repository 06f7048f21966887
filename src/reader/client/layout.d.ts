// Types of ./layout.js for the tests (the client is plain JavaScript, bundled for browsers).
export type Slot = { w: number; h: number };
export declare const isSpread: (width: number, height: number) => boolean;
export declare const spreadOf: (n: number, total: number, spread: boolean) => (number | null)[];
export declare const onScreen: (pages: (number | null)[], rtl: boolean) => (number | null)[];
export declare const firstOf: (pages: (number | null)[]) => number;
export declare const lastOf: (pages: (number | null)[]) => number;
export declare const slotSizes: (
  pages: (number | null)[],
  aspect: (n: number) => number,
  width: number,
  height: number,
) => Slot[];
export declare const renditionWidths: (w: number, h: number) => number[];
export declare const imageSizes: (cssWidth: number, density?: number) => string;
export declare const labelOf: (labels: Map<number, string>, n: number) => string;
export declare const expandLabels: (runs: unknown[] | undefined) => Map<number, string>;
export declare const pageForInput: (
  input: string,
  labels: Map<number, string>,
  total: number,
) => number | null;
