/** What went wrong with the person's last action, announced to screen readers; nothing when all is well. */
export function ProblemNote({ problem, testId, inline = false }: { problem: string | undefined; testId: string; inline?: boolean }) {
  if (!problem) return null;
  const Element = inline ? 'span' : 'p';
  return (
    <Element className="decision-problem" role="alert" data-testid={testId}>
      {problem}
    </Element>
  );
}
