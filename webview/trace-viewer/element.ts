/** The viewer's one way to make an element: a tag and its class names (content is set as text by the caller). */
export function el(tag: string, className: string): HTMLElement {
  const element = document.createElement(tag);
  element.className = className;
  return element;
}
