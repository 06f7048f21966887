// How hard each job may push the machine: pdftoppm processes per job share the cores among lanes.
import { availableParallelism } from 'node:os';
import { DEFAULT_RENDER_OPTIONS, type RenderOptions } from '../pdf/renderPdf.ts';

export { defaultLanes } from './lanes.ts';

export const renderOptionsFor = (lanes: number): RenderOptions => ({
  ...DEFAULT_RENDER_OPTIONS,
  processes: Math.max(1, Math.round(availableParallelism() / Math.max(1, lanes))),
});
