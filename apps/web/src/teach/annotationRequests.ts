// Teach mode (request_annotation) in the control window: WORK IN PROGRESS — the person-facing
// panel is being built; until it lands every request is refused with a clear error.
import { ProtocolError, type ToolArgs, type ToolViewerResult } from '@overlay-companion/protocol';

export class AnnotationRequests {
  request(
    _args: ToolArgs<'request_annotation'>,
    _signal: AbortSignal,
  ): Promise<ToolViewerResult<'request_annotation'>> {
    return Promise.reject(
      new ProtocolError('system_error', 'This viewer cannot ask the person for annotations yet.'),
    );
  }
}
