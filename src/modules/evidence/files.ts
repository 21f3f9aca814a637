// The two data files of an export, written row by row into bounded chunks: access.json (one row
// object per line inside {"application_id", "columns", "rows": [...]}) and access.csv (RFC 4180,
// CRLF, a header line). Each file's SHA-256 and byte count are computed as its bytes are produced.
import { createHash, type Hash } from "node:crypto";
import { COLUMNS, type AccessRow } from "./snapshot";

/** A chunk is flushed once it holds this many characters (bounded memory per file). */
export const CHUNK_CHARS = 256 * 1024;

export const DATA_FILES = [
  { name: "access.json", mediaType: "application/json" },
  { name: "access.csv", mediaType: "text/csv" },
] as const;
export type DataFileName = (typeof DATA_FILES)[number]["name"];

export interface WrittenFile {
  name: DataFileName;
  media_type: string;
  rows: number;
  bytes: number;
  sha256: string;
}

/** One file being produced: text goes in, full chunks come out through `flush`. */
class FileWriter {
  private buffer = "";
  private seq = 0;
  private bytes = 0;
  private readonly hash: Hash = createHash("sha256");
  rows = 0;

  constructor(
    readonly name: DataFileName,
    readonly mediaType: string,
    private readonly flush: (file: DataFileName, seq: number, content: string) => Promise<void>,
  ) {}

  async write(text: string): Promise<void> {
    this.buffer += text;
    if (this.buffer.length >= CHUNK_CHARS) await this.emit();
  }

  private async emit(): Promise<void> {
    if (this.buffer.length === 0) return;
    const content = this.buffer;
    this.buffer = "";
    this.hash.update(content, "utf8");
    this.bytes += Buffer.byteLength(content, "utf8");
    await this.flush(this.name, this.seq++, content);
  }

  async finish(): Promise<WrittenFile> {
    await this.emit();
    return { name: this.name, media_type: this.mediaType, rows: this.rows, bytes: this.bytes, sha256: this.hash.digest("hex") };
  }
}

/** A CSV cell: quoted when needed; text a spreadsheet would run as a formula gets a leading apostrophe (OWASP CSV injection). */
export function csvCell(v: string | boolean | null): string {
  if (v === null) return "";
  if (typeof v === "boolean") return v ? "true" : "false";
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export class DataFilesWriter {
  private readonly json: FileWriter;
  private readonly csv: FileWriter;

  constructor(
    private readonly applicationId: string,
    flush: (file: DataFileName, seq: number, content: string) => Promise<void>,
  ) {
    this.json = new FileWriter("access.json", "application/json", flush);
    this.csv = new FileWriter("access.csv", "text/csv", flush);
  }

  async start(): Promise<void> {
    await this.json.write(`{"application_id":${JSON.stringify(this.applicationId)},"columns":${JSON.stringify(COLUMNS)},"rows":[`);
    await this.csv.write(COLUMNS.join(",") + "\r\n");
  }

  async add(rows: readonly AccessRow[]): Promise<void> {
    let json = "";
    let csv = "";
    for (const row of rows) {
      // Keys in COLUMNS order, whatever order the row object was built in.
      const ordered: Record<string, unknown> = {};
      for (const c of COLUMNS) ordered[c] = row[c];
      json += (this.json.rows === 0 ? "\n" : ",\n") + JSON.stringify(ordered);
      this.json.rows++;
      csv += COLUMNS.map((c) => csvCell(row[c])).join(",") + "\r\n";
      this.csv.rows++;
    }
    await this.json.write(json);
    await this.csv.write(csv);
  }

  async finish(): Promise<WrittenFile[]> {
    await this.json.write("\n]}\n");
    return [await this.json.finish(), await this.csv.finish()];
  }
}
