// The render options of a daemon or worker: its renderer processes are shared by all its jobs.
import { DEFAULT_RENDER_OPTIONS, type RenderOptions } from '../pdf/renderPdf.ts';
import { RenderSlots } from '../pdf/renderSlots.ts';

export { defaultLanes, defaultRenderProcesses } from './lanes.ts';

export const renderOptionsFor = (processes: number): RenderOptions => ({
  ...DEFAULT_RENDER_OPTIONS,
  slots: new RenderSlots({ capacity: processes }),
});
