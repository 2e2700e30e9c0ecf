package dev.highload.profiles.gatling.monitor;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Stroke;
import java.awt.geom.AffineTransform;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Line2D;
import java.awt.geom.Path2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import javax.imageio.ImageIO;

/**
 * The one line-chart renderer behind every chart of the monitor. The layout is computed
 * once and drawn on a {@link Canvas}, so the PNG (Java2D) and the inline SVG of the HTML
 * report show the same chart.
 */
final class LineChart {

	static {
		// Set before anything touches AWT: a load generator has no display.
		if (System.getProperty("java.awt.headless") == null) {
			System.setProperty("java.awt.headless", "true");
		}
	}

	static final int WIDTH = 1200;

	static final int HEIGHT = 500;

	/** Distinct colours for up to ten series; more repeat. */
	static final List<Color> PALETTE = List.of(new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c),
			new Color(0xd62728), new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f),
			new Color(0xbcbd22), new Color(0x17becf));

	private static final Color INK = new Color(0x222222);

	private static final Color AXIS_TEXT = new Color(0x555555);

	private static final Color GRID = new Color(0xe3e3e3);

	private static final String FONT = "SansSerif";

	private static final int LEFT = 80;

	private static final int RIGHT = 30;

	private static final int BOTTOM = 56;

	private final String title;

	private final String xLabel;

	private final String yLabel;

	private final List<Line> lines;

	private final int width;

	private final int height;

	LineChart(String title, String xLabel, String yLabel, List<Line> lines) {
		this(title, xLabel, yLabel, lines, WIDTH, HEIGHT);
	}

	LineChart(String title, String xLabel, String yLabel, List<Line> lines, int width, int height) {
		this.title = title;
		this.xLabel = xLabel;
		this.yLabel = yLabel;
		this.lines = List.copyOf(lines);
		this.width = width;
		this.height = height;
	}

	/** The colour of the series at this position, from {@link #PALETTE}. */
	static Color color(int index) {
		return PALETTE.get(index % PALETTE.size());
	}

	BufferedImage toImage() {
		BufferedImage image = new BufferedImage(this.width, this.height, BufferedImage.TYPE_INT_RGB);
		Graphics2D graphics = image.createGraphics();
		try {
			graphics.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
			graphics.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
			graphics.setRenderingHint(RenderingHints.KEY_STROKE_CONTROL, RenderingHints.VALUE_STROKE_PURE);
			draw(new Java2dCanvas(graphics));
		}
		finally {
			graphics.dispose();
		}
		return image;
	}

	void writePng(Path file) throws IOException {
		BufferedImage image = toImage();
		createParent(file);
		try (OutputStream out = Files.newOutputStream(file)) {
			if (!ImageIO.write(image, "png", out)) {
				throw new IOException("No PNG writer in this JDK");
			}
		}
	}

	/** The chart as a standalone {@code <svg>} element, for inlining in HTML. */
	String toSvg() {
		SvgCanvas canvas = new SvgCanvas(this.width, this.height);
		draw(canvas);
		return canvas.finish();
	}

	static void createParent(Path file) throws IOException {
		Path parent = file.toAbsolutePath().getParent();
		if (parent != null) {
			Files.createDirectories(parent);
		}
	}

	private void draw(Canvas canvas) {
		canvas.fillRect(0, 0, this.width, this.height, Color.WHITE);
		canvas.text(this.width / 2.0, 30, this.title, Anchor.MIDDLE, INK, 18, true);

		// The legend wraps onto as many rows as it needs; the plot starts below it.
		double legendX = LEFT;
		double legendY = 56;
		Font legendFont = new Font(FONT, Font.PLAIN, 13);
		Graphics2D measure = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB).createGraphics();
		List<Integer> widths = new ArrayList<>();
		try {
			// The SVG uses the same widths: browsers' sans-serif fonts come close enough.
			for (Line line : this.lines) {
				widths.add(measure.getFontMetrics(legendFont).stringWidth(line.name()));
			}
		}
		finally {
			measure.dispose();
		}
		for (int i = 0; i < this.lines.size(); i++) {
			Line line = this.lines.get(i);
			double entry = 26 + widths.get(i) + 22;
			if (legendX + entry > this.width - RIGHT && legendX > LEFT) {
				legendX = LEFT;
				legendY += 20;
			}
			canvas.line(legendX, legendY - 4, legendX + 20, legendY - 4, line.color(), 3, line.dashed());
			canvas.text(legendX + 26, legendY, line.name(), Anchor.START, INK, 13, false);
			legendX += entry;
		}
		double top = legendY + 18;
		double left = LEFT;
		double right = this.width - RIGHT;
		double bottom = this.height - BOTTOM;

		Range range = range();
		double yStep = niceStep(range.yMax(), 8);
		double yTop = Math.max(yStep, Math.ceil(range.yMax() / yStep - 1e-9) * yStep);
		double xStep = niceStep(range.xMax() - range.xMin(), 12);
		Scale scale = new Scale(range.xMin(), range.xMax(), 0, yTop, left, right, bottom, top);

		for (int i = 0;; i++) {
			double value = i * yStep;
			if (value > yTop + yStep * 1e-6) {
				break;
			}
			double y = scale.y(value);
			canvas.line(left, y, right, y, GRID, 1, false);
			canvas.text(left - 8, y + 4, format(value, yStep), Anchor.END, AXIS_TEXT, 12, false);
		}
		double firstX = Math.ceil(range.xMin() / xStep - 1e-9) * xStep;
		for (int i = 0;; i++) {
			double value = firstX + i * xStep;
			if (value > range.xMax() + xStep * 1e-6) {
				break;
			}
			double x = scale.x(value);
			canvas.line(x, top, x, bottom, GRID, 1, false);
			canvas.text(x, bottom + 18, format(value, xStep), Anchor.MIDDLE, AXIS_TEXT, 12, false);
		}
		canvas.line(left, bottom, right, bottom, AXIS_TEXT, 1, false);
		canvas.line(left, top, left, bottom, AXIS_TEXT, 1, false);
		canvas.text((left + right) / 2, this.height - 12, this.xLabel, Anchor.MIDDLE, INK, 13, false);
		canvas.verticalText(22, (top + bottom) / 2, this.yLabel, INK, 13);
		if (!range.hasData()) {
			canvas.text((left + right) / 2, (top + bottom) / 2, "no data", Anchor.MIDDLE, AXIS_TEXT, 16, false);
		}

		for (Line line : this.lines) {
			drawLine(canvas, scale, line);
		}
	}

	private static void drawLine(Canvas canvas, Scale scale, Line line) {
		// A missing value (NaN) breaks the line; an isolated value is drawn as a dot.
		int count = Math.min(line.x().length, line.y().length);
		List<double[]> run = new ArrayList<>();
		for (int i = 0; i <= count; i++) {
			boolean present = i < count && Double.isFinite(line.x()[i]) && Double.isFinite(line.y()[i]);
			if (present) {
				run.add(new double[] { scale.x(line.x()[i]), scale.y(line.y()[i]) });
			}
			else if (!run.isEmpty()) {
				if (run.size() == 1) {
					canvas.dot(run.get(0)[0], run.get(0)[1], 3, line.color());
				}
				else {
					canvas.polyline(run, line.color(), 2, line.dashed());
				}
				run = new ArrayList<>();
			}
		}
	}

	private Range range() {
		double xMin = Double.POSITIVE_INFINITY;
		double xMax = Double.NEGATIVE_INFINITY;
		double yMax = 0;
		boolean data = false;
		for (Line line : this.lines) {
			int count = Math.min(line.x().length, line.y().length);
			for (int i = 0; i < count; i++) {
				double x = line.x()[i];
				double y = line.y()[i];
				if (Double.isFinite(x) && Double.isFinite(y)) {
					data = true;
					xMin = Math.min(xMin, x);
					xMax = Math.max(xMax, x);
					yMax = Math.max(yMax, y);
				}
			}
		}
		if (!data) {
			return new Range(0, 1, 1, false);
		}
		// Time axes start at zero so that charts of one run line up.
		xMin = Math.min(0, xMin);
		if (xMax <= xMin) {
			xMax = xMin + 1;
		}
		return new Range(xMin, xMax, (yMax > 0) ? yMax : 1, true);
	}

	/** A step of 1, 2, 2.5 or 5 times a power of ten giving about {@code ticks} ticks. */
	static double niceStep(double span, int ticks) {
		double raw = span / ticks;
		if (!(raw > 0) || !Double.isFinite(raw)) {
			return 1;
		}
		double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
		double normalized = raw / magnitude;
		double nice = (normalized <= 1) ? 1
				: (normalized <= 2) ? 2 : (normalized <= 2.5) ? 2.5 : (normalized <= 5) ? 5 : 10;
		return nice * magnitude;
	}

	/** Formats a tick value with just the decimals its step needs. */
	static String format(double value, double step) {
		int decimals = 0;
		while (decimals < 6
				&& Math.abs(step * Math.pow(10, decimals) - Math.rint(step * Math.pow(10, decimals))) > 1e-6) {
			decimals++;
		}
		return String.format(Locale.ROOT, "%." + decimals + "f", value);
	}

	/**
	 * One series.
	 *
	 * @param name shown in the legend
	 * @param color its colour
	 * @param dashed drawn dashed, to set a total apart from its parts
	 * @param x the x values
	 * @param y the y values, NaN where a value is missing
	 */
	record Line(String name, Color color, boolean dashed, double[] x, double[] y) {

	}

	private record Range(double xMin, double xMax, double yMax, boolean hasData) {

	}

	private record Scale(double xMin, double xMax, double yMin, double yMax, double left, double right, double bottom,
			double top) {

		double x(double value) {
			return this.left + (value - this.xMin) / (this.xMax - this.xMin) * (this.right - this.left);
		}

		double y(double value) {
			return this.bottom - (value - this.yMin) / (this.yMax - this.yMin) * (this.bottom - this.top);
		}

	}

	private enum Anchor {

		START, MIDDLE, END

	}

	/** What the layout draws with; one implementation per output format. */
	private interface Canvas {

		void fillRect(double x, double y, double width, double height, Color color);

		void line(double x1, double y1, double x2, double y2, Color color, float width, boolean dashed);

		void polyline(List<double[]> points, Color color, float width, boolean dashed);

		void dot(double x, double y, double radius, Color color);

		void text(double x, double y, String text, Anchor anchor, Color color, int size, boolean bold);

		void verticalText(double x, double y, String text, Color color, int size);

	}

	private static final class Java2dCanvas implements Canvas {

		private final Graphics2D graphics;

		Java2dCanvas(Graphics2D graphics) {
			this.graphics = graphics;
		}

		@Override
		public void fillRect(double x, double y, double width, double height, Color color) {
			this.graphics.setColor(color);
			this.graphics.fill(new Rectangle2D.Double(x, y, width, height));
		}

		@Override
		public void line(double x1, double y1, double x2, double y2, Color color, float width, boolean dashed) {
			this.graphics.setColor(color);
			this.graphics.setStroke(stroke(width, dashed));
			this.graphics.draw(new Line2D.Double(x1, y1, x2, y2));
		}

		@Override
		public void polyline(List<double[]> points, Color color, float width, boolean dashed) {
			Path2D.Double path = new Path2D.Double();
			path.moveTo(points.get(0)[0], points.get(0)[1]);
			for (int i = 1; i < points.size(); i++) {
				path.lineTo(points.get(i)[0], points.get(i)[1]);
			}
			this.graphics.setColor(color);
			this.graphics.setStroke(stroke(width, dashed));
			this.graphics.draw(path);
		}

		@Override
		public void dot(double x, double y, double radius, Color color) {
			this.graphics.setColor(color);
			this.graphics.fill(new Ellipse2D.Double(x - radius, y - radius, 2 * radius, 2 * radius));
		}

		@Override
		public void text(double x, double y, String text, Anchor anchor, Color color, int size, boolean bold) {
			Font font = new Font(FONT, bold ? Font.BOLD : Font.PLAIN, size);
			FontMetrics metrics = this.graphics.getFontMetrics(font);
			int width = metrics.stringWidth(text);
			double shift = (anchor == Anchor.START) ? 0 : (anchor == Anchor.MIDDLE) ? width / 2.0 : width;
			this.graphics.setFont(font);
			this.graphics.setColor(color);
			this.graphics.drawString(text, (float) (x - shift), (float) y);
		}

		@Override
		public void verticalText(double x, double y, String text, Color color, int size) {
			AffineTransform saved = this.graphics.getTransform();
			this.graphics.rotate(-Math.PI / 2, x, y);
			text(x, y, text, Anchor.MIDDLE, color, size, false);
			this.graphics.setTransform(saved);
		}

		private static Stroke stroke(float width, boolean dashed) {
			return dashed ? new BasicStroke(width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f,
					new float[] { 8f, 5f }, 0f) : new BasicStroke(width, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND);
		}

	}

	private static final class SvgCanvas implements Canvas {

		private final StringBuilder svg = new StringBuilder();

		SvgCanvas(int width, int height) {
			this.svg.append(String.format(Locale.ROOT,
					"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
							+ " font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\" role=\"img\">\n",
					width, height, width, height));
		}

		String finish() {
			return this.svg.append("</svg>\n").toString();
		}

		@Override
		public void fillRect(double x, double y, double width, double height, Color color) {
			this.svg.append(String.format(Locale.ROOT,
					"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n", x, y, width, height,
					hex(color)));
		}

		@Override
		public void line(double x1, double y1, double x2, double y2, Color color, float width, boolean dashed) {
			this.svg.append(String.format(Locale.ROOT,
					"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%.1f\"%s/>\n",
					x1, y1, x2, y2, hex(color), width, dash(dashed)));
		}

		@Override
		public void polyline(List<double[]> points, Color color, float width, boolean dashed) {
			this.svg.append("<polyline fill=\"none\" stroke-linejoin=\"round\" stroke-linecap=\"round\" points=\"");
			for (double[] point : points) {
				this.svg.append(String.format(Locale.ROOT, "%.1f,%.1f ", point[0], point[1]));
			}
			this.svg.append(String.format(Locale.ROOT, "\" stroke=\"%s\" stroke-width=\"%.1f\"%s/>\n", hex(color),
					width, dash(dashed)));
		}

		@Override
		public void dot(double x, double y, double radius, Color color) {
			this.svg.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"/>\n", x,
					y, radius, hex(color)));
		}

		@Override
		public void text(double x, double y, String text, Anchor anchor, Color color, int size, boolean bold) {
			this.svg.append(String.format(Locale.ROOT,
					"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\"%s fill=\"%s\">%s</text>\n", x, y,
					anchor.name().toLowerCase(Locale.ROOT), size, bold ? " font-weight=\"bold\"" : "", hex(color),
					escape(text)));
		}

		@Override
		public void verticalText(double x, double y, String text, Color color, int size) {
			this.svg
				.append(String.format(Locale.ROOT,
						"<text x=\"%.1f\" y=\"%.1f\" transform=\"rotate(-90 %.1f %.1f)\" text-anchor=\"middle\""
								+ " font-size=\"%d\" fill=\"%s\">%s</text>\n",
						x, y, x, y, size, hex(color), escape(text)));
		}

		private static String dash(boolean dashed) {
			return dashed ? " stroke-dasharray=\"8 5\"" : "";
		}

		private static String hex(Color color) {
			return String.format(Locale.ROOT, "#%06x", color.getRGB() & 0xffffff);
		}

	}

	/** Escapes text for XML and HTML content and attribute values. */
	static String escape(String text) {
		StringBuilder escaped = new StringBuilder(text.length());
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			switch (c) {
				case '&' -> escaped.append("&amp;");
				case '<' -> escaped.append("&lt;");
				case '>' -> escaped.append("&gt;");
				case '"' -> escaped.append("&quot;");
				case '\'' -> escaped.append("&#39;");
				default -> escaped.append(c);
			}
		}
		return escaped.toString();
	}

}
