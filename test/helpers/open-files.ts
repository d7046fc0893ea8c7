import fs from 'node:fs';

/** How many of this process's file descriptors are open on `file` (Linux: /proc/self/fd). */
export function openDescriptorsOf(file: string): number {
  return fs.readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false;
    }
  }).length;
}
