// Gateway frame costs on 1280×800 desktops: decoding a full ZRLE frame from a real Xvnc (our
// RFB client, over the desktop's Unix socket as the embedded gateway reaches it) and encoding it
// as PNG for the browser (the gateway's own encode path), on the typical desktop a person sees
// and on a worst-case busy one.
import { RfbClient, measureRegionEncode, type LocalDesktop } from '@overlay-companion/gateway';
import { fullFrame, startBusyDesktop, startTypicalDesktop } from './busyDesktop.js';
import { summarize, type Summary } from './stats.js';

export interface FrameResults {
  width: number;
  height: number;
  full_frame_decode_ms: Summary;
  full_frame_encode_ms: Summary;
  bytes_per_full_frame: { png: number; wire: number; raw_rgba: number };
}

export async function benchFrames(
  iterations: number,
): Promise<{ typical: FrameResults; busy: FrameResults }> {
  const typical = await measureDesktop(await startTypicalDesktop(), iterations);
  const busy = await measureDesktop(await startBusyDesktop(), iterations);
  return { typical, busy };
}

async function measureDesktop(desktop: LocalDesktop, iterations: number): Promise<FrameResults> {
  const client = await RfbClient.connect({ path: desktop.rfbPath });
  try {
    client.pointer(client.width - 1, client.height - 1, 0); // keep the cursor out of the pixels
    await fullFrame(client);
    const decode: number[] = [];
    for (let i = 0; i < Math.max(7, Math.floor(iterations / 4)); i++) {
      decode.push((await fullFrame(client)).decodeMs);
    }
    const encode = await measureRegionEncode(
      Buffer.from(client.framebuffer),
      client.width,
      client.height,
      { iterations },
    );
    return {
      width: client.width,
      height: client.height,
      full_frame_decode_ms: summarize(decode),
      full_frame_encode_ms: summarize(encode.samplesMs),
      bytes_per_full_frame: {
        png: encode.pngBytes,
        wire: encode.wireBytes,
        raw_rgba: client.width * client.height * 4,
      },
    };
  } finally {
    client.close();
    await desktop.stop();
  }
}
