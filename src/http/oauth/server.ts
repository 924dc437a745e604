/**
 * The authorization server as the HTTP layer holds it: made on first use, because its issuer is
 * the address the server listens on when no public URL is configured (a port chosen at listen).
 */
import type { Provider } from 'oidc-provider';
import { createProvider, type ProviderOptions } from './provider.ts';

export interface OAuthServerOptions extends Omit<ProviderOptions, 'issuer'> {
  /** The public base URL (--public-url), without a trailing slash; undefined: the listening address. */
  readonly publicUrl: string | undefined;
}

export class OAuthServer {
  private made: Promise<Provider> | undefined;

  constructor(
    private readonly options: OAuthServerOptions,
    /** The listening address (http://host:port), asked only when no public URL is configured. */
    private readonly listeningAt: () => string,
  ) {}

  /** The issuer identifier: the base URL and /oauth. */
  issuer(): string {
    return `${this.options.publicUrl ?? this.listeningAt()}/oauth`;
  }

  provider(): Promise<Provider> {
    this.made ??= createProvider({ ...this.options, issuer: this.issuer() });
    return this.made;
  }
}
