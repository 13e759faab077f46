// Test support for file transfer: a bridge of the test's access with file options (its own
// desktop server a closed port: transfer into an RDP drive folder needs no RDP session), and
// the Files panel's requests as a signed-in browser sends them.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { CSRF_HEADER, FILES_API } from '@overlay-companion/protocol';
import {
  startWithDesktopControl,
  type ControlledBridge,
  type ControlledBridgeOptions,
} from '../../bridge.js';
import type { BrowserSession } from '../../testing/browserSession.js';
import type { TestAccess } from '../../testing/testAccess.js';

export function startFilesBridge(
  fixture: Pick<TestAccess, 'access' | 'dataDir' | 'logger'>,
  files: ControlledBridgeOptions['files'],
): Promise<ControlledBridge> {
  return startWithDesktopControl(
    {
      host: '127.0.0.1',
      port: 0,
      dataDir: fixture.dataDir,
      webRoot: join(fixture.dataDir, 'no-web-build'),
      guacd: { host: '127.0.0.1', port: 9 },
      connection: { protocol: 'vnc', params: {} },
    },
    { access: fixture.access, files },
    { logger: fixture.logger },
  );
}

/** An upload of `size` random bytes as `session`'s browser. */
export function uploadAs(
  session: BrowserSession,
  desktopId: string,
  name: string,
  size = 4096,
): Promise<Response> {
  return fetch(new URL(FILES_API.file(desktopId, name), session.url), {
    method: 'PUT',
    body: randomBytes(size),
    headers: {
      origin: new URL(session.url).origin,
      cookie: session.cookie,
      [CSRF_HEADER]: session.csrf,
      'content-type': 'application/octet-stream',
    },
  });
}

/** The person in charge's "Others may transfer files" switch, as `session` flips it. */
export function chooseOthersMay(
  session: BrowserSession,
  desktopId: string,
  othersMay: boolean,
): Promise<Response> {
  return session.request(FILES_API.policy(desktopId), {
    method: 'PUT',
    body: { others_may_transfer: othersMay },
  });
}
