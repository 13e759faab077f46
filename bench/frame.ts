// Gateway frame costs on a busy 1280×800 desktop: decoding a full ZRLE frame from a real Xvnc
// (our RFB client) and encoding it as PNG for the browser (the gateway's own encode path).
import { RfbClient, measureRegionEncode } from '@overlay-companion/gateway';
import { fullFrame, startBusyDesktop } from './busyDesktop.js';
import { summarize, type Summary } from './stats.js';

export interface FrameResults {
  width: number;
  height: number;
  full_frame_decode_ms: Summary;
  full_frame_encode_ms: Summary;
  bytes_per_full_frame: { png: number; wire: number; raw_rgba: number };
}

export async function benchFrames(iterations: number): Promise<FrameResults> {
  const desktop = await startBusyDesktop();
  const client = await RfbClient.connect({ host: desktop.host, port: desktop.port });
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
