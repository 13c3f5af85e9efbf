import { sharpOf, type RawImage } from './raw-image.js';

/**
 * image_width / image_height: one keeps the aspect ratio; both give exactly that size, cropped
 * from the top centre (thumbnails and social cards show a page's head). Untouched when neither is given.
 */
export async function resizeImage(
  image: RawImage,
  options: { image_width?: number | undefined; image_height?: number | undefined },
): Promise<RawImage> {
  const { image_width: width, image_height: height } = options;
  if (width === undefined && height === undefined) return image;
  const { data, info } = await sharpOf(image)
    .resize({ width, height, fit: width !== undefined && height !== undefined ? 'cover' : 'inside', position: 'top' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { kind: 'pixels', data, width: info.width, height: info.height, channels: info.channels === 4 ? 4 : 3 };
}
