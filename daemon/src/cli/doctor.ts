// `roundtable doctor`: the checks in doctor/, their report printed; the exit code says whether any failed.
import { runDoctor } from '../doctor/index.js';
import type { Command } from './command.js';

export const DOCTOR: Command = {
  name: 'doctor',
  usage: 'doctor',
  summary: 'check config, database, backups, disk, TLS and the port; say how to fix',
  options: [],
  args: [],
  async run(config) {
    process.exitCode = await runDoctor(config);
  },
};
