// The official OpenAI Node client against sqlrl serve-model: only the base
// URL (OPENAI_BASE_URL) differs from talking to OpenAI.
// The openai package is resolved from NODE_PATH (a node_modules directory
// outside the repository), which ES module imports ignore, hence require.
import { createRequire } from "node:module";
const require = createRequire(process.env.NODE_PATH + "/");
const OpenAI = require("openai").default ?? require("openai");

const client = new OpenAI(); // reads OPENAI_BASE_URL and OPENAI_API_KEY
const models = await client.models.list();
const chat = await client.chat.completions.create({
  model: "sqlrl-test",
  messages: [{ role: "user", content: "question: How many customers?" }],
  n: 2, temperature: 0.7, top_p: 0.9, max_tokens: 16, stop: [";"],
});
if (chat.choices.length !== 2) throw new Error("want 2 chat choices");
const comp = await client.completions.create({
  model: "sqlrl-test", prompt: "question: How many customers?\nSQL: ", max_tokens: 16, temperature: 0,
});
const stream = await client.chat.completions.create({
  model: "sqlrl-test", messages: [{ role: "user", content: "question: q" }], max_tokens: 8, stream: true,
});
// A refused request reaches the caller as the client's APIError, with our
// status and message (the error body is OpenAI's shape).
try {
  await client.completions.create({ model: "sqlrl-test", prompt: "q", top_p: 0 });
  throw new Error("top_p 0 was accepted");
} catch (e) {
  if (!(e instanceof OpenAI.APIError) || e.status !== 400 || !String(e.message).includes("top_p")) throw e;
}
let streamed = "";
for await (const chunk of stream) streamed += chunk.choices[0]?.delta?.content ?? "";
console.log("models:", models.data.map((m) => m.id).join(","));
console.log("chat:", JSON.stringify(chat.choices.map((c) => c.message.content)), chat.usage);
console.log("completion:", JSON.stringify(comp.choices[0].text), comp.choices[0].finish_reason);
console.log("stream:", JSON.stringify(streamed));
console.log("OK");
