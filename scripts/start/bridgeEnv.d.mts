// Types of bridgeEnv.mjs (plain JavaScript, since npm start runs before dependencies exist).
export function bridgeProcessEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
