import sharp from 'sharp';

/** A 1200x900 JPEG made for tests: a red rounded box with a blue disc, off-centre on a grey (200) studio backdrop. */
export async function redProductOnGrey(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="900"><rect width="1200" height="900" fill="rgb(200,200,200)"/><rect x="300" y="150" width="700" height="500" rx="60" fill="rgb(210,30,30)"/><circle cx="650" cy="400" r="120" fill="rgb(40,40,160)"/></svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 92 }).toBuffer();
}
