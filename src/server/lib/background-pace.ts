/**
 * Background work on the event loop (a batch's items) in short stretches. Sandbox items settle
 * without I/O, so a chunk's 250 items, and those of every batch running at once, would otherwise
 * run in one go while a single call's request waits unread. Each unit of work asks for a turn: while
 * the current stretch is under its budget it goes on at once; past it, it waits for the event loop's
 * next round (after the sockets have been read), and the waiting units then start a new stretch.
 */
export class BackgroundPace {
  private stretchStart = -Infinity;
  private waiting: (() => void)[] = [];
  private scheduled = false;

  constructor(
    private readonly budgetMs = 4,
    private readonly now: () => number = () => performance.now(),
    private readonly nextRound: (run: () => void) => void = (run) => void setImmediate(run),
  ) {}

  /** Undefined: go on now. A promise: wait for it, the next stretch's start. */
  turn(): Promise<void> | undefined {
    if (this.waiting.length === 0 && this.now() - this.stretchStart < this.budgetMs) return undefined;
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      if (this.scheduled) return;
      this.scheduled = true;
      this.nextRound(() => this.startStretch());
    });
  }

  /** Units waiting for the next stretch. */
  get queued(): number {
    return this.waiting.length;
  }

  // Every waiting unit gets one step in the new stretch (in the order they came), then the budget decides again.
  private startStretch() {
    this.scheduled = false;
    this.stretchStart = this.now();
    for (const resume of this.waiting.splice(0)) resume();
  }
}

/** The process's pace for batch items (all batches share one budget per round of the event loop). */
export const batchPace = new BackgroundPace();
