/** A single status line on stderr, rewritten in place while a run goes on (only on a terminal). */
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export class Progress {
  private frame = 0;
  private readonly started = Date.now();
  private text = "";
  private readonly timer?: NodeJS.Timeout;
  private readonly tty = process.stderr.isTTY === true;

  constructor(label: string) {
    this.text = label;
    if (this.tty) this.timer = setInterval(() => this.draw(), 100);
  }

  update(text: string): void {
    this.text = text;
    if (!this.tty) process.stderr.write(`… ${text}\n`);
  }

  private draw(): void {
    const seconds = ((Date.now() - this.started) / 1000).toFixed(1);
    process.stderr.write(`\r\x1b[2K${FRAMES[this.frame++ % FRAMES.length]} ${this.text} (${seconds}s)`);
  }

  done(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.tty) process.stderr.write("\r\x1b[2K");
  }
}
