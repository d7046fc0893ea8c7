/** A clock the test moves by hand. */
export class TestClock {
  private current: number;
  constructor(start = '2026-03-01T12:00:00.000Z') {
    this.current = Date.parse(start);
  }
  readonly now = (): Date => new Date(this.current);
  advance(ms: number): void {
    this.current += ms;
  }
}
