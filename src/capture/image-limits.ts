/** Bounds of one image capture, from the operator's configuration. */
export interface ImageLimits {
  /** Full-page captures are cut at this height, in CSS px. */
  maxFullPageHeight: number;
  /** Width × height × dsf² of the output may not exceed this. */
  maxPixels: number;
}
