export function RequestFeaturePage() {
  return null;
}
