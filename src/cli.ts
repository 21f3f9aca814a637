// `toolgate` command line (process entry): the commands live in src/cli/run.ts.
import { runCli } from "./cli/run";

runCli(process.argv.slice(2), process.env, { out: (t) => console.log(t), err: (t) => console.error(t) }).then(
  (status) => process.exit(status),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
