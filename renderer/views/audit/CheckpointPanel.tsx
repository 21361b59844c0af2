/** The latest signed checkpoint and whether it verifies (placeholder until the checkpoint writer lands). */
export function CheckpointPanel() {
  return null;
}
