/** Sets `key` in `map`, first forgetting its oldest entry when it holds `limit` entries: a cache that cannot grow past them. */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, limit: number): void {
  if (map.size >= limit) map.delete(map.keys().next().value!);
  map.set(key, value);
}
