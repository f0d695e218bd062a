// SPDX-License-Identifier: GPL-2.0
// prepage-bench app (bench/README.md, "Apps"): renders a feed page.
import java.io.BufferedReader;
import java.io.FileReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

public final class App {
	record Post(int id, int author, int likes, String title, String body) { }

	static final List<Post> POSTS = new ArrayList<>();
	static final Map<Integer, List<Post>> BY_AUTHOR = new HashMap<>();
	static final int[] FOLLOWED = new int[50];
	static final List<Object> KEPT = new ArrayList<>();

	static String render(int[] authors, int perAuthor) {
		StringBuilder sb = new StringBuilder();
		for (int a : authors) {
			List<Post> l = BY_AUTHOR.getOrDefault(a, List.of());
			for (int i = 0; i < Math.min(perAuthor, l.size()); i++) {
				Post p = l.get(i);
				sb.append("<article id=\"").append(p.id()).append("\"><h2>")
				  .append(p.title()).append("</h2><p>").append(p.body())
				  .append("</p><footer>").append(p.likes())
				  .append("</footer></article>");
			}
		}
		return sb.toString();
	}

	static long crc(String s) {
		CRC32 c = new CRC32();
		c.update(s.getBytes(StandardCharsets.UTF_8));
		return c.getValue();
	}

	static long doSwitch(int round) {
		SplittableRandom r = new SplittableRandom(1000 + round);
		int[] authors = new int[FOLLOWED.length + 20];
		System.arraycopy(FOLLOWED, 0, authors, 0, FOLLOWED.length);
		for (int i = FOLLOWED.length; i < authors.length; i++)
			authors[i] = r.nextInt(2000);
		return crc(render(authors, 4));
	}

	static void use(int round) {
		SplittableRandom r = new SplittableRandom(50000 + round);
		List<Post> copy = new ArrayList<>();
		for (int i = 0; i < 3000; i++) {
			Post p = POSTS.get(r.nextInt(POSTS.size()));
			copy.add(new Post(p.id(), p.author(), p.likes(),
					  new String(p.title()), new String(p.body())));
		}
		KEPT.add(copy);
		while (KEPT.size() > 3)
			KEPT.remove(0);
		int[] authors = new int[30];
		for (int i = 0; i < authors.length; i++)
			authors[i] = r.nextInt(2000);
		crc(render(authors, 6));
	}

	public static void main(String[] args) throws IOException {
		try (BufferedReader in = new BufferedReader(new FileReader("posts.tsv"))) {
			String line;
			while ((line = in.readLine()) != null) {
				String[] f = line.split("\t");
				Post p = new Post(Integer.parseInt(f[0]), Integer.parseInt(f[1]),
						  Integer.parseInt(f[2]), f[3], f[4]);
				POSTS.add(p);
				BY_AUTHOR.computeIfAbsent(p.author(), k -> new ArrayList<>()).add(p);
			}
		}
		SplittableRandom r = new SplittableRandom(7);
		for (int i = 0; i < FOLLOWED.length; i++)
			FOLLOWED[i] = r.nextInt(2000);
		System.out.println("READY");
		System.out.flush();
		BufferedReader cmds = new BufferedReader(new InputStreamReader(System.in));
		String line;
		while ((line = cmds.readLine()) != null) {
			String[] c = line.trim().split("\\s+");
			if (c[0].isEmpty() || c[0].equals("Q"))
				break;
			switch (c[0]) {
			case "S" -> {
				long sum = doSwitch(Integer.parseInt(c[1]));
				System.out.printf("DONE %08x %d%n", sum, System.nanoTime());
			}
			case "U" -> { use(Integer.parseInt(c[1])); System.out.println("OK"); }
			case "B" -> { System.gc(); System.out.println("OK"); }
			default -> System.out.println("ERROR unknown command");
			}
			System.out.flush();
		}
	}
}
