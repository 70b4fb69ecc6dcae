import type { Mapping } from '../mapping';
import { ibmArMapping } from './ibm-ar';

/** Built-in mappings, by the name given to --preset or the API's preset field. */
export const PRESETS: Record<string, Mapping> = {
  'ibm-ar': ibmArMapping,
};
