import { Component, type ErrorInfo, type ReactNode } from 'react';

interface Props {
  /** What the boundary holds, in words: "this page", "this invoice". */
  what: string;
  children: ReactNode;
}

/**
 * One failing component takes down only the part it belongs to (a page, the invoice panel), never
 * the whole window: the part says what failed in words and offers to reload; the error goes to
 * the console for whoever reports it.
 */
export class PageBoundary extends Component<Props, { error: Error | null }> {
  state = { error: null as Error | null };

  static getDerivedStateFromError(error: unknown) {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error(`ardesk: ${this.props.what} stopped working`, error, info.componentStack);
  }

  render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <div className="error-box page-failed" role="alert" data-testid="page-failed">
        <div>
          <strong>Something went wrong while showing {this.props.what}.</strong>{' '}
          <span>Nothing was changed. Reloading usually helps; if it happens again, tell whoever looks after ardesk what you were doing. ({error.message})</span>
        </div>
        <button type="button" className="btn" onClick={() => window.location.reload()}>
          Reload this page
        </button>
      </div>
    );
  }
}
