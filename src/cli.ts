// `toolgate` command line (process entry): the commands live in src/cli/run.ts.
import { runCli } from "./cli/run";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

runCli(process.argv.slice(2), process.env, { out: (t) => console.log(t), err: (t) => console.error(t), readStdin }).then(
  (status) => process.exit(status),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
