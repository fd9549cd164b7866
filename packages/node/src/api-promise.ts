import type { ResponseMeta } from "./http.js";

/**
 * What every method returns: awaited, the answer's `data`; `.withResponse()` gives `{ data, response }`
 * with the request id, status and replay flag, which never mix with the data's own fields (an Aadhaar
 * OTP answer has a `requestId` of its own).
 */
export class ApiPromise<T> implements PromiseLike<T> {
  readonly #result: Promise<{ data: T; response: ResponseMeta }>;

  constructor(result: Promise<{ data: T; response: ResponseMeta }>) {
    this.#result = result;
  }

  /** The data and the answer's metadata. */
  withResponse(): Promise<{ data: T; response: ResponseMeta }> {
    return this.#result;
  }

  then<A = T, B = never>(
    onfulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#result.then((r) => r.data).then(onfulfilled, onrejected);
  }

  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.then(undefined, onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.then().finally(onfinally);
  }
}

/** One page of a listing: its data and its answer's metadata. */
export interface Page<P> {
  data: P;
  response: ResponseMeta;
}

/**
 * A batch's results from a starting cursor: awaited, the first page (`{ items, next_cursor }`);
 * iterated with `for await`, every item of every page in index order, fetching pages as it goes;
 * `.pages()` iterates the pages themselves. Nothing is fetched until it is awaited or iterated.
 */
export class PagedList<Item, P extends { items: readonly Item[]; next_cursor: string | null }> implements PromiseLike<P>, AsyncIterable<Item> {
  readonly #fetchPage: (cursor: string | undefined) => Promise<Page<P>>;
  readonly #cursor: string | undefined;

  constructor(fetchPage: (cursor: string | undefined) => Promise<Page<P>>, cursor?: string) {
    this.#fetchPage = fetchPage;
    this.#cursor = cursor;
  }

  /** The first page with its answer's metadata. */
  withResponse(): Promise<Page<P>> {
    return this.#fetchPage(this.#cursor);
  }

  then<A = P, B = never>(
    onfulfilled?: ((value: P) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.withResponse()
      .then((p) => p.data)
      .then(onfulfilled, onrejected);
  }

  async *pages(): AsyncGenerator<Page<P>, void, undefined> {
    let cursor = this.#cursor;
    for (;;) {
      const page = await this.#fetchPage(cursor);
      yield page;
      if (!page.data.next_cursor) return;
      cursor = page.data.next_cursor;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* page.data.items;
  }
}
