// The help text of the `overlay-companion` command, printed by --help and after a usage error.

export const USAGE = `Usage: overlay-companion <command> [options]

Commands:
  serve      Run the bridge: the viewer at /, the Guacamole tunnel, and a desktop to show
  gateway    Run the embedded guacd-compatible VNC gateway alone
  stdio      Serve MCP over stdio by forwarding to a running bridge (for stdio-only clients)

overlay-companion serve [options]
  --host HOST          address to listen on (default 127.0.0.1)
  --port PORT          port to listen on; 0 picks a free one (default 8080)
  --data-dir DIR       where the bridge keeps its state (default ./.data)
  --web-root DIR       the built viewer to serve (default apps/web/dist)
  Desktop source, at most one (default: --desktop local):
  --desktop local      start a local Xvnc desktop with openbox and an xterm, in a sandbox
                       (bubblewrap, no network, unprivileged; never the bridge's user or env)
  --vnc HOST:PORT      an existing VNC server; its password from OC_VNC_PASSWORD
  --rdp HOST:PORT      an RDP server through real guacd (needs --guacd);
                       credentials from OC_RDP_USER and OC_RDP_PASSWORD
  --rdp-keyboard L     the RDP keyboard layout, e.g. de-de-qwertz (default en-us-qwerty);
                       xrdp 0.9 drops characters the layout lacks (ä on en-us)
  --guacd HOST:PORT    use this guacd instead of the embedded gateway
  --gateways LIST      a pool of gateways shared by the site's bridges (also OC_GATEWAYS):
                       gateway://HOST:PORT (overlay-companion gateway, with the same
                       OC_GATEWAY_SECRET) and guacd://HOST:PORT (Apache guacd), comma-separated;
                       each desktop opens on the least-loaded healthy one (local desktops stay
                       on the embedded gateway); gateways:// and guacds:// are the same over TLS:
                       the member's certificate is checked against OC_POOL_CA (PEM; else the
                       system's CAs) and its host; OC_POOL_CLIENT_CERT + OC_POOL_CLIENT_KEY are
                       shown to members that ask (mutual TLS)
  --desktop-name NAME  the name of the desktop record the source makes (default Desktop);
                       more desktops and grants: the /desktops page
  --local-desktops M   shared (default) or per-person: each person also gets a sandboxed
                       local desktop of their own, started when first opened, stopped idle
  --desktop-size WxH   fix the remote desktop's size (also OC_DESKTOP_SIZE); without it
                       the owner's saved monitor layout decides, and no viewer window
                       ever resizes the desktop
  --mode MODE          everyone's starting mode: passive, assist (default), composing,
                       autopilot, custom; the person in charge of a desktop changes it
  --headless-viewer    keep a headless Chromium viewer open for the admin (no person needed;
                       approvals go to the MCP client by elicitation, else are denied);
                       OC_CHROMIUM picks the binary (default /usr/bin/chromium)
  --record             record every desktop whose owner set nothing else (also OC_RECORD=1):
                       files in <data-dir>/recordings, shown at /recordings
  --recordings-s3 URL  keep ended recordings in an S3-compatible bucket, s3://BUCKET/PREFIX
                       (also OC_RECORDINGS_S3_URL; OC_S3_ENDPOINT for a store that is not
                       AWS, OC_S3_REGION; credentials: the AWS variables or profile); the data
                       dir holds them only while they are written
  --log-level LEVEL    fatal, error, warn, info (default), debug, trace or silent
                       (also OC_LOG_LEVEL); JSON lines on stderr, secrets redacted
  Health and metrics: /healthz (alive), /readyz (desktop server and database reachable),
  /metrics (Prometheus; with OC_METRICS_TOKEN as a bearer token, or from loopback without
  one if OC_METRICS_OPEN_LOOPBACK=1; otherwise closed)
  Sign-in: on the first run serve prints a one-time setup link to create the admin, unless
  OC_ADMIN_USER and OC_ADMIN_PASSWORD are set (then that admin is created). People sign in
  at /signin; AI clients use tokens people create on /config. More variables: DATABASE_URL
  (PostgreSQL instead of <data-dir>/overlay-companion.db), OC_PUBLIC_URL, OC_MCP_TOKEN (a
  token that acts for the admin), OC_TRUSTED_PROXIES, OC_SESSION_IDLE_MINUTES,
  OC_SESSION_MAX_HOURS, OC_SIGNIN_MAX_FAILURES, OC_SIGNIN_BAN_SECONDS, OC_OIDC_* (see README).

overlay-companion stdio [options]
  --url URL            the bridge's MCP endpoint (default http://127.0.0.1:8080/mcp)
  --token-file FILE    file holding a token made on the bridge's /config page;
                       OC_MCP_TOKEN wins

overlay-companion gateway [options]
  --listen HOST:PORT   where the gateway listens (default 127.0.0.1:4822)
  --log-level LEVEL    as for serve
  --tls-cert FILE      serve TLS with this PEM certificate (also OC_GATEWAY_TLS_CERT)
  --tls-key FILE       and its PEM key (also OC_GATEWAY_TLS_KEY)
  --tls-client-ca FILE mutual TLS: only clients with a certificate this CA signed connect
                       (also OC_GATEWAY_TLS_CLIENT_CA)
  Like guacd, the gateway trusts whoever connects: anyone who can reach HOST:PORT (any
  local user, on loopback) can reach every VNC desktop this machine can reach and join
  running connections by id. Keep the port reachable only by your Guacamole web app.
  (serve does not use this: its gateway is reached only by the bridge, over a Unix socket.)
  With OC_GATEWAY_SECRET (22+ characters) it is a member of the bridges' pool (--gateways):
  it serves only clients that send the secret first, and refuses everyone else.

Environment: OC_LOG_LEVEL (info, debug, silent, ...) sets the log level unless --log-level
does; logs go to stderr as JSON lines.
MCP: the endpoint is /mcp (Streamable HTTP) with "Authorization: Bearer <token>", a token made
on /config (or OC_MCP_TOKEN). OC_PUBLIC_URL is the address people use when a proxy sits in
front (allowed as Host/Origin; https makes the sign-in cookie Secure).
`;
