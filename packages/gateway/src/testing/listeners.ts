// What a process listens on, read from /proc (Linux): its socket inodes from /proc/<pid>/fd,
// matched against the kernel's socket tables. Tests use it to prove that a desktop or gateway
// has no TCP listener at all, without trusting the process's own account of itself.
import { readdir, readFile, readlink } from 'node:fs/promises';

export interface TcpListener {
  protocol: 'tcp' | 'tcp6';
  /** The local address as the kernel prints it (hex). */
  address: string;
  port: number;
}

const TCP_LISTEN = '0A';

/** Every listening TCP socket (IPv4 and IPv6) held open by process `pid`. */
export async function tcpListenersOf(pid: number): Promise<TcpListener[]> {
  const inodes = await socketInodesOf(pid);
  const found: TcpListener[] = [];
  for (const protocol of ['tcp', 'tcp6'] as const) {
    const table = await readFile(`/proc/${String(pid)}/net/${protocol}`, 'utf8');
    for (const line of table.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [local, state, inode] = [fields[1], fields[3], fields[9]];
      if (local === undefined || state !== TCP_LISTEN || inode === undefined) continue;
      if (!inodes.has(inode)) continue;
      const [address = '', port = '0'] = local.split(':');
      found.push({ protocol, address, port: parseInt(port, 16) });
    }
  }
  return found;
}

/** Listening Unix sockets of `pid`, by path (abstract ones start with '@'). */
export async function unixListenersOf(pid: number): Promise<string[]> {
  const inodes = await socketInodesOf(pid);
  const table = await readFile(`/proc/${String(pid)}/net/unix`, 'utf8');
  const paths: string[] = [];
  for (const line of table.split('\n').slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path; flag 00010000 is __SO_ACCEPTCON (listening).
    const fields = line.trim().split(/\s+/);
    const [flags, inode, path] = [fields[3], fields[6], fields[7]];
    if (flags === undefined || inode === undefined || path === undefined) continue;
    if ((parseInt(flags, 16) & 0x10000) === 0 || !inodes.has(inode)) continue;
    paths.push(path);
  }
  return paths;
}

async function socketInodesOf(pid: number): Promise<Set<string>> {
  const dir = `/proc/${String(pid)}/fd`;
  const inodes = new Set<string>();
  for (const fd of await readdir(dir)) {
    const target = await readlink(`${dir}/${fd}`).catch(() => '');
    const match = /^socket:\[(\d+)\]$/.exec(target);
    if (match?.[1] !== undefined) inodes.add(match[1]);
  }
  return inodes;
}
