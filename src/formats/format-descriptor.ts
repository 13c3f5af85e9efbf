/** What an output format is, as data: how callers name it, what comes back, which rules apply to it. */
export interface FormatDescriptor<Name extends string = string> {
  name: Name;
  /** Other names accepted for `format` (jpeg → jpg). */
  aliases: readonly string[];
  contentType: string;
  /** File extension, without the dot. */
  extension: string;
  /**
   * image: pixels (clip, resizing and the pixel budget apply); document: a printed document; text: the
   * page's content; video: frames over time (/v1/animate).
   */
  kind: 'image' | 'document' | 'text' | 'video';
  /** `quality` applies. */
  lossy: boolean;
  /** `omit_background` applies: the format holds transparency. */
  transparency: boolean;
  /** The capture's time is capped at 12 s (the spec's cap for documents and text). */
  shortTimeCap: boolean;
}
