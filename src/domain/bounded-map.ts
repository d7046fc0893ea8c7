/**
 * Keeps `value` under `key` in a map used as a memory of values derived again and again from a
 * few distinct keys (a version's text, a part's length, a query's SQL). Bounded: once the map
 * holds `limit` keys it starts again, so a stream of distinct keys costs recomputation, never
 * memory without end. Returns the value.
 */
export function remember<K, V>(map: Map<K, V>, key: K, value: V, limit: number): V {
  if (map.size >= limit) map.clear();
  map.set(key, value);
  return value;
}
