/** Submissions per hour as a bar chart: server-rendered SVG, with its numbers as its text alternative. */
export function HourlyChart({ hours }: { hours: Array<{ start: string; count: number }> }) {
  const width = 720;
  const height = 160;
  const max = Math.max(1, ...hours.map((h) => h.count));
  const bar = width / Math.max(1, hours.length);
  const total = hours.reduce((sum, h) => sum + h.count, 0);
  const busiest = hours.reduce(
    (best, h) => (h.count > best.count ? h : best),
    hours[0] ?? { start: '', count: 0 },
  );
  return (
    <figure class="chart">
      <svg
        role="img"
        aria-labelledby="chart-title chart-desc"
        viewBox={`0 0 ${width} ${height + 20}`}
        width="100%"
        preserveAspectRatio="none"
      >
        <title id="chart-title">Submissions received per hour, last 24 hours</title>
        <desc id="chart-desc">
          {`${total} submissions in 24 hours; the busiest hour (from ${busiest.start.slice(11, 16)} UTC) had ${busiest.count}.`}
        </desc>
        <line x1="0" y1={height} x2={width} y2={height} class="axis" />
        {hours.map((h, i) => {
          const barHeight = (h.count / max) * (height - 10);
          return (
            <rect
              key={h.start}
              x={i * bar + 2}
              y={height - barHeight}
              width={Math.max(1, bar - 4)}
              height={barHeight}
              class="bar"
            />
          );
        })}
      </svg>
      <figcaption>
        Submissions received per hour over the last 24 hours (UTC), oldest on the left: {total} in all.
      </figcaption>
    </figure>
  );
}
