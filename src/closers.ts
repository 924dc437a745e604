/**
 * Part of the composition root: what it has opened, to be closed again last first. main.ts pushes
 * each part as soon as it is open, so whichever start-up step fails, exactly the parts opened before
 * it are closed, in reverse order, and shutdown closes the same list the same way.
 */
export class Closers {
  private readonly parts: { readonly name: string; readonly close: () => void | Promise<void> }[] = [];
  private closing: Promise<void> | undefined;

  /** `close` undoes what was just opened; it runs once, before whatever was pushed earlier. */
  push(name: string, close: () => void | Promise<void>): void {
    if (this.closing !== undefined) throw new Error(`${name} opened after closing began`);
    this.parts.push({ name, close });
  }

  /**
   * Closes every part, the last pushed first; one that fails does not keep the others open. Rejects
   * afterwards, naming each part that failed. Calling it again waits for the same closing.
   */
  closeAll(): Promise<void> {
    this.closing ??= this.run();
    return this.closing;
  }

  /**
   * Runs a start-up step: if it throws, everything opened so far is closed (a failure to close is
   * reported, not thrown: the step's own error is the one to tell), then the error goes on.
   */
  async starting<T>(step: () => Promise<T>, onCloseError: (error: unknown) => void): Promise<T> {
    try {
      return await step();
    } catch (error) {
      await this.closeAll().catch(onCloseError);
      throw error;
    }
  }

  private async run(): Promise<void> {
    const failed: { name: string; error: unknown }[] = [];
    for (const { name, close } of this.parts.toReversed()) {
      try {
        await close();
      } catch (error) {
        failed.push({ name, error });
      }
    }
    if (failed.length > 0)
      throw new AggregateError(
        failed.map((f) => f.error),
        `closing failed: ${failed.map((f) => `${f.name} (${(f.error as Error).message ?? f.error})`).join(', ')}`,
      );
  }
}
