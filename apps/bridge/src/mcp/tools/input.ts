// click_at's finishing step: a click the person approved through the MCP client (headless
// viewer, elicitation) was confirmed even though the viewer itself did not ask. Every other
// input tool is relayed unchanged (relayTool.ts); the policy gate is in relayCall.ts.
import { relayTool } from './relayTool.js';

export const clickAt = relayTool('click_at', (result, _args, _ctx, approvedByPerson) => ({
  structured: approvedByPerson ? { ...result, was_confirmed: true } : result,
}));
