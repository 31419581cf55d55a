import { inflateRawSync } from 'node:zlib';
import { MalformedResponseError } from '../connector.ts';

// Just enough of the ZIP format (APPNOTE.TXT) to open a Microsoft Advertising report download: the
// central directory is read from the end-of-central-directory record, and each entry is stored or
// deflated. Encrypted entries and ZIP64 archives (over 4 GB) are refused.

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;

export interface ZipEntry {
  name: string;
  content: Buffer;
}

function endOfCentralDirectory(zip: Buffer, platform: string): number {
  const earliest = Math.max(0, zip.length - 22 - 0xffff);
  for (let offset = zip.length - 22; offset >= earliest; offset--) {
    if (zip.readUInt32LE(offset) === END_OF_CENTRAL_DIRECTORY) return offset;
  }
  throw new MalformedResponseError(platform, 'the report download is not a ZIP archive');
}

export function readZip(zip: Buffer, platform: string): ZipEntry[] {
  if (zip.length < 22) throw new MalformedResponseError(platform, 'the report download is not a ZIP archive');
  const end = endOfCentralDirectory(zip, platform);
  const count = zip.readUInt16LE(end + 10);
  let offset = zip.readUInt32LE(end + 16);
  if (offset === 0xffffffff || count === 0xffff) throw new MalformedResponseError(platform, 'ZIP64 report archives are not supported');
  const entries: ZipEntry[] = [];
  for (let index = 0; index < count; index++) {
    if (offset + 46 > zip.length || zip.readUInt32LE(offset) !== CENTRAL_DIRECTORY_ENTRY) throw new MalformedResponseError(platform, 'damaged ZIP central directory');
    const flags = zip.readUInt16LE(offset + 8);
    const method = zip.readUInt16LE(offset + 10);
    const compressedSize = zip.readUInt32LE(offset + 20);
    const size = zip.readUInt32LE(offset + 24);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    const localOffset = zip.readUInt32LE(offset + 42);
    const name = zip.toString('utf8', offset + 46, offset + 46 + nameLength);
    offset += 46 + nameLength + extraLength + commentLength;

    if (flags & 1) throw new MalformedResponseError(platform, `ZIP entry ${name} is encrypted`);
    if (localOffset + 30 > zip.length || zip.readUInt32LE(localOffset) !== LOCAL_FILE_HEADER) throw new MalformedResponseError(platform, `damaged ZIP entry ${name}`);
    const dataStart = localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
    const data = zip.subarray(dataStart, dataStart + compressedSize);
    if (data.length !== compressedSize) throw new MalformedResponseError(platform, `truncated ZIP entry ${name}`);
    let content: Buffer;
    if (method === STORED) content = Buffer.from(data);
    else if (method === DEFLATED) {
      try {
        content = inflateRawSync(data);
      } catch (error) {
        throw new MalformedResponseError(platform, `ZIP entry ${name} does not inflate: ${(error as Error).message}`);
      }
    } else throw new MalformedResponseError(platform, `ZIP entry ${name} uses unsupported compression ${method}`);
    if (content.length !== size) throw new MalformedResponseError(platform, `ZIP entry ${name} has ${content.length} bytes, expected ${size}`);
    entries.push({ name, content });
  }
  return entries;
}
