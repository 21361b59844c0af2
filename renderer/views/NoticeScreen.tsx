import type { ReactNode } from 'react';

/** A full-page message for when the console cannot work at all (no token, token refused). */
export function NoticeScreen({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="notice-screen">
      <h1 className="brand">Toolgate</h1>
      <section className="notice" role="alert">
        <h2>{title}</h2>
        {children}
      </section>
    </main>
  );
}

/** The sentence that tells a person where a working console URL comes from. */
export function OpenPrintedUrlHint() {
  return (
    <p>
      Open the console URL that <code>toolgate serve</code> printed (it carries the console token, also kept in{' '}
      <code>$TOOLGATE_HOME/console-token</code>). The agents&apos; MCP token does not open the console.
    </p>
  );
}
