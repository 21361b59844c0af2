import type { Preview } from '../../../../shared/approval';
import { VisibleText } from '../../common/VisibleText';

type RequestPreviewData = Extract<Preview, { kind: 'request' }>;

/** The request a fetch would make: method, host and the whole URL. */
export function RequestPreview({ preview }: { preview: RequestPreviewData }) {
  return (
    <section className="preview preview-request" aria-label="Preview">
      <h4>Request</h4>
      <p data-testid="request-line">
        <span className="request-method">{preview.method}</span> <VisibleText text={preview.url} />
      </p>
      <p className="request-host">
        to <strong data-testid="request-host">{preview.host}</strong>
      </p>
    </section>
  );
}
