/** A resource's text as the model reads it: in a wrapper naming its server and URI, which the text cannot close (it is the server's, hostile). */
export function wrappedResource(server: string, uri: string, mimeType: string | undefined, text: string): string {
  const attributes = [`server="${attribute(server)}"`, `uri="${attribute(uri)}"`, ...(mimeType !== undefined ? [`mimeType="${attribute(mimeType)}"`] : [])];
  return `<mcp-resource ${attributes.join(' ')}>\n${text.replace(/<\/(mcp-resource)/gi, '<\\/$1')}\n</mcp-resource>`;
}

function attribute(value: string): string {
  return value.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);
}
