/**
 * The crash test's child: records a session at lab rates and prints the log's path, then keeps
 * recording until the parent kills it with SIGKILL. Run with tsx: crash-child.ts DIR.
 */
import { SessionRecorder } from '../../src-main/session/recorder';
import { startLabStream } from './lab-stream';
import { sampleScene, sampleSettings } from './sample-messages';

const dir = process.argv[2];
if (!dir) throw new Error('usage: crash-child.ts DIR');
const recorder = await SessionRecorder.create({ dir, label: 'crash', origin: 'test' });
recorder.settings('dry', sampleScene, sampleSettings);
startLabStream(recorder);
process.stdout.write(`recording ${recorder.file}\n`);
// Stay alive: the stream's timer keeps the loop busy until the kill.
setInterval(() => undefined, 1000);
