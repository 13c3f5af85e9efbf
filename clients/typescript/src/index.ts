export { ShutterClient, Jobs } from './client.js';
export { ShutterError, isShutterError, type ShutterErrorDetail, type ShutterErrorInit, type ClientErrorCode } from './errors.js';
export { TAKE_OPTION_NAMES, type TakeOptions, type AnimateOptions, type Cookie } from './options.js';
export {
  signedUrl,
  verifyWebhook,
  hmacSha256Hex,
  timingSafeEqual,
  type SignedUrlOptions,
  type StandaloneSignedUrlOptions,
  type VerifyWebhookOptions,
} from './signing.js';
export { toQueryString } from './query.js';
export type {
  BulkOptions,
  BulkResult,
  CallOptions,
  Device,
  Job,
  JobCallOptions,
  JobCreated,
  JobOptions,
  JobStatus,
  PageMetadata,
  ShutterClientOptions,
  Status,
  TakeFileResult,
  TakeJsonOptions,
  TakeJsonResult,
  WaitOptions,
} from './types.js';
export { VERSION } from './version.js';
